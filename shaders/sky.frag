#version 330 core
// Evening sky: horizon haze to zenith blue, a warm sun glow.
in vec2 v_ndc;
uniform mat4 u_inv_view_proj;
uniform vec3 u_sun_dir;
out vec4 frag;
void main() {
    vec4 a = u_inv_view_proj * vec4(v_ndc, -1.0, 1.0);
    vec4 b = u_inv_view_proj * vec4(v_ndc, 1.0, 1.0);
    vec3 d = normalize(b.xyz / b.w - a.xyz / a.w);
    float t = clamp(d.y, -0.2, 1.0);
    vec3 horizon = vec3(0.86, 0.80, 0.74);
    vec3 zenith = vec3(0.24, 0.42, 0.72);
    vec3 col = mix(horizon, zenith, pow(max(t, 0.0), 0.55));
    float s = max(dot(d, u_sun_dir), 0.0);
    col += vec3(1.0, 0.8, 0.55) * (pow(s, 64.0) * 0.8 + pow(s, 6.0) * 0.15);
    frag = vec4(col, 1.0);
}
