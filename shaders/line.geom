#version 330 core
// Expand each line segment into a quad u_width pixels wide (core profile has no wide lines).
layout(lines) in;
layout(triangle_strip, max_vertices = 4) out;
in vec4 g_color[];
uniform vec2 u_viewport;
uniform float u_width;
out vec4 v_color;
void main() {
    vec4 a = gl_in[0].gl_Position;
    vec4 b = gl_in[1].gl_Position;
    // clip against the near plane so segments behind the eye do not explode
    if (a.w < 0.05 && b.w < 0.05) return;
    if (a.w < 0.05) a = mix(a, b, (0.05 - a.w) / (b.w - a.w));
    if (b.w < 0.05) b = mix(b, a, (0.05 - b.w) / (a.w - b.w));
    vec2 sa = a.xy / a.w * u_viewport * 0.5;
    vec2 sb = b.xy / b.w * u_viewport * 0.5;
    vec2 d = sb - sa;
    float len = length(d);
    vec2 dir = len > 1e-4 ? d / len : vec2(1.0, 0.0);
    vec2 off = vec2(-dir.y, dir.x) * u_width * 0.5 / (u_viewport * 0.5);
    vec2 ext = dir * u_width * 0.5 / (u_viewport * 0.5);
    v_color = g_color[0]; gl_Position = vec4((a.xy / a.w - ext + off) * a.w, a.z, a.w); EmitVertex();
    v_color = g_color[0]; gl_Position = vec4((a.xy / a.w - ext - off) * a.w, a.z, a.w); EmitVertex();
    v_color = g_color[1]; gl_Position = vec4((b.xy / b.w + ext + off) * b.w, b.z, b.w); EmitVertex();
    v_color = g_color[1]; gl_Position = vec4((b.xy / b.w + ext - off) * b.w, b.z, b.w); EmitVertex();
    EndPrimitive();
}
