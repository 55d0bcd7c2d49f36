#version 330 core
// Debug overlay segments: one instanced quad per segment, widened to u_width
// pixels in screen space (the core profile has no wide lines).
layout(location = 0) in vec2 a_corner;      // x: 0 at a, 1 at b; y: -1 / +1 across
layout(location = 1) in vec3 i_a;
layout(location = 2) in vec3 i_b;
layout(location = 3) in vec4 i_color;
uniform mat4 u_view_proj;
uniform vec2 u_viewport;
uniform float u_width;
out vec4 v_color;
void main() {
    vec4 a = u_view_proj * vec4(i_a, 1.0);
    vec4 b = u_view_proj * vec4(i_b, 1.0);
    // clip against the near plane so segments through the eye do not explode
    if (a.w < 0.05) a = mix(a, b, (0.05 - a.w) / (b.w - a.w));
    if (b.w < 0.05) b = mix(b, a, (0.05 - b.w) / (a.w - b.w));
    vec2 half_vp = u_viewport * 0.5;
    vec2 sa = a.xy / a.w * half_vp, sb = b.xy / b.w * half_vp;
    vec2 d = sb - sa;
    float len = length(d);
    vec2 dir = len > 1e-4 ? d / len : vec2(1.0, 0.0);
    vec2 off = (vec2(-dir.y, dir.x) * a_corner.y + dir * (a_corner.x * 2.0 - 1.0)) * u_width * 0.5;
    vec4 p = mix(a, b, a_corner.x);
    gl_Position = vec4((p.xy / p.w + off / half_vp) * p.w, p.z, p.w);
    v_color = i_color;
}
