#version 330 core
// Additive glow: a hot core for sparks, a bright rim for the shield ring.
in vec2 v_uv;
in vec4 v_color;
in float v_ring;
out vec4 frag;
void main() {
    float r = length(v_uv);
    float a;
    if (v_ring > 0.5) {
        a = exp(-pow((r - 0.78) * 9.0, 2.0)) + 0.15 * (1.0 - smoothstep(0.0, 0.8, r));
    } else {
        a = exp(-r * r * 4.0);
        a += 0.8 * exp(-r * r * 30.0);
    }
    a *= 1.0 - smoothstep(0.9, 1.0, r);
    vec3 c = v_color.rgb * v_color.a * a;
    c += vec3(1.0) * max(v_color.a - 0.6, 0.0) * exp(-r * r * 40.0);   // white-hot centre
    frag = vec4(c, 1.0);
}
