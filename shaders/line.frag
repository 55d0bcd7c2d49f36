#version 330 core
in vec4 v_color;
uniform float u_alpha;
out vec4 frag;
void main() { frag = vec4(v_color.rgb, v_color.a * u_alpha); }
