#version 330 core
// Billboarded spark streaks: each instance is a quad stretched along its
// screen-space velocity.  i_size < 0 marks a ring (blocked-hit shield flash).
layout(location = 0) in vec2 a_corner;      // (-1..1, -1..1)
layout(location = 1) in vec3 i_pos;
layout(location = 2) in vec3 i_tail;        // world offset to the streak's tail
layout(location = 3) in float i_size;       // world radius, metres
layout(location = 4) in vec4 i_color;       // rgb, intensity

uniform mat4 u_view_proj;
uniform vec2 u_viewport;
uniform float u_proj11;

out vec2 v_uv;
out vec4 v_color;
out float v_ring;

void main() {
    vec4 c0 = u_view_proj * vec4(i_pos, 1.0);
    vec4 c1 = u_view_proj * vec4(i_pos - i_tail, 1.0);
    float w0 = max(c0.w, 0.05);
    vec2 half_vp = u_viewport * 0.5;
    vec2 s0 = c0.xy / w0 * half_vp;
    vec2 s1 = c1.xy / max(c1.w, 0.05) * half_vp;
    vec2 d = s0 - s1;
    float len = length(d);
    vec2 dir = len > 1e-3 ? d / len : vec2(1.0, 0.0);
    vec2 perp = vec2(-dir.y, dir.x);
    float r = abs(i_size) * u_proj11 / w0 * half_vp.y;
    vec2 centre = (s0 + s1) * 0.5;
    vec2 p = centre + dir * a_corner.x * (len * 0.5 + r) + perp * a_corner.y * r;
    gl_Position = vec4(p / half_vp * w0, 0.0, w0);
    v_uv = a_corner;
    v_color = i_color;
    v_ring = i_size < 0.0 ? 1.0 : 0.0;
}
