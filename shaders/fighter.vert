#version 330 core
// Fighters: one static mesh of every limb of both fighters; a_slot picks the
// limb's world matrix (rotation columns = limb axes, translation = joint).
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_color;
layout(location = 3) in float a_slot;

uniform mat4 u_limb[32];
uniform mat4 u_view_proj;
uniform mat4 u_light_vp;
uniform float u_n_limbs;

out vec3 v_world;
out vec3 v_normal;
out vec3 v_color;
out float v_mat;
out vec4 v_light;

void main() {
    mat4 m = u_limb[int(a_slot + 0.5)];
    vec4 w = m * vec4(a_pos, 1.0);
    v_world = w.xyz;
    v_normal = mat3(m) * a_normal;
    v_color = a_color;
    v_mat = 10.0 + floor((a_slot + 0.5) / u_n_limbs);   // 10: fighter 1, 11: fighter 2
    v_light = u_light_vp * w;
    gl_Position = u_view_proj * w;
}
