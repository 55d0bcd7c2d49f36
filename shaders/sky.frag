#version 330 core
// Late-afternoon sky: horizon haze to zenith blue, a warm sun glow.
in vec3 v_dir;
uniform vec3 u_sun_dir;
out vec4 frag;
void main() {
    vec3 d = normalize(v_dir);
    float t = sqrt(clamp(d.y, 0.0, 1.0));
    vec3 col = mix(vec3(0.86, 0.80, 0.74), vec3(0.24, 0.42, 0.72), t);
    float s = max(dot(d, u_sun_dir), 0.0);
    float s2 = s * s, s6 = s2 * s2 * s2;
    float s64 = s2 * s2; s64 *= s64; s64 *= s64; s64 *= s64;
    col += vec3(1.0, 0.8, 0.55) * (s64 * 0.8 + s6 * 0.15);
    frag = vec4(col, 1.0);
}
