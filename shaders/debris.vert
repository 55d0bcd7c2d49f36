#version 330 core
// Crate debris: instanced boxes (wood chips and break chunks).  The unit cube
// (corners +-1) is scaled by each instance's half extents, rotated by its
// matrix (three columns) and moved to its centre; lit per vertex like the arena.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 i_center;
layout(location = 3) in vec3 i_r0;
layout(location = 4) in vec3 i_r1;
layout(location = 5) in vec3 i_r2;
layout(location = 6) in vec3 i_half;
layout(location = 7) in vec4 i_color;       // linear rgb, opacity

uniform mat4 u_view_proj;
uniform vec3 u_eye;
uniform vec3 u_sun_dir;

out vec4 v_color;

#include lighting.glsl

void main() {
    mat3 r = mat3(i_r0, i_r1, i_r2);
    vec3 w = i_center + r * (a_pos * i_half);
    vec3 n = r * a_normal;
    vec3 col = light_vertex(i_color.rgb, w, n, u_eye, u_sun_dir, 0.04, mix(0.55, 1.0, clamp(w.y * 2.5, 0.0, 1.0)));
    v_color = vec4(finish(col, w, u_eye), i_color.a);
    gl_Position = u_view_proj * vec4(w, 1.0);
}
