#version 330 core
// Static arena geometry in world space, flat normals, a material id per vertex.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_color;
layout(location = 3) in float a_mat;

uniform mat4 u_view_proj;
uniform mat4 u_light_vp;

out vec3 v_world;
out vec3 v_normal;
out vec3 v_color;
out float v_mat;
out vec4 v_light;

void main() {
    v_world = a_pos;
    v_normal = a_normal;
    v_color = a_color;
    v_mat = a_mat;
    v_light = u_light_vp * vec4(a_pos, 1.0);
    gl_Position = u_view_proj * vec4(a_pos, 1.0);
}
