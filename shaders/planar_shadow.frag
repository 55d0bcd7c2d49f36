#version 330 core
in float v_height;
uniform float u_strength;
out vec4 frag;
void main() {
    frag = vec4(0.02, 0.03, 0.08, u_strength * (1.0 - 0.35 * clamp(v_height * 0.5, 0.0, 1.0)));
}
