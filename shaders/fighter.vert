#version 330 core
// Fighters: one static mesh of every limb of both fighters; a_slot picks the
// limb's world matrix (rotation columns = limb axes, translation = joint).
// Lit per vertex (see lighting.glsl), with a rim light and the hit flash.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_color;
layout(location = 3) in float a_slot;

uniform mat4 u_limb[32];
uniform mat4 u_view_proj;
uniform vec3 u_eye;
uniform vec3 u_sun_dir;
uniform float u_n_limbs;
uniform vec4 u_flash[2];         // per fighter: rgb tint (linear), amount (hit flash)

out vec3 v_world;
out vec3 v_color;
out float v_aa;                  // 1: fighters have no pattern to anti-alias

#include lighting.glsl

void main() {
    mat4 m = u_limb[int(a_slot + 0.5)];
    vec4 w = m * vec4(a_pos, 1.0);
    vec3 n = normalize(mat3(m) * a_normal);
    vec3 col = light_vertex(a_color, w.xyz, n, u_eye, u_sun_dir, 0.35, 1.0);
    float rim = 1.0 - max(dot(n, normalize(u_eye - w.xyz)), 0.0);
    vec4 flash = u_flash[int(floor((a_slot + 0.5) / u_n_limbs))];
    col += (rim * rim * rim) * vec3(0.26, 0.37, 0.78) * 0.55 + flash.rgb * flash.a;
    v_color = finish(col, w.xyz, u_eye);
    v_world = w.xyz;
    v_aa = 1.0;
    gl_Position = u_view_proj * w;
}
