#version 330 core
// Debug overlay lines (world space); widened to screen-space quads in line.geom.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_color;
uniform mat4 u_view_proj;
out vec4 g_color;
void main() {
    gl_Position = u_view_proj * vec4(a_pos, 1.0);
    g_color = a_color;
}
