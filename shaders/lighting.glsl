// Shared by fighter.vert and world.vert (the loader pastes this file in place of its include line).
// All lighting, fog, tone mapping and gamma happen per vertex (Gouraud); the
// fragment shader only multiplies in a procedural pattern.  On a software
// rasteriser (llvmpipe) per-pixel lighting at 1280x720 cost several frame budgets.
const vec3 SUN = vec3(1.00, 0.84, 0.64) * 2.0;
const vec3 SKY = vec3(0.18, 0.30, 0.61) * 0.85;
const vec3 GROUND = vec3(0.09, 0.06, 0.05) * 0.6;
const vec3 FOG = vec3(0.42, 0.52, 0.70);

// lit colour (linear) of albedo at p with normal n; extra: rim light, flash, ...
vec3 light_vertex(vec3 albedo, vec3 p, vec3 n, vec3 eye, vec3 sun, float spec_k, float ao) {
    vec3 V = normalize(eye - p);
    if (dot(n, V) < 0.0) n = -n;
    float ndl = max(dot(n, sun), 0.0);
    float s = max(dot(n, normalize(sun + V)), 0.0);
    s *= s; s *= s; s *= s; s *= s; s *= s;                     // ^32
    return albedo * (mix(GROUND, SKY, n.y * 0.5 + 0.5) * ao + SUN * ndl) + SUN * (s * spec_k * ndl);
}

// fog, filmic tone map (Narkowicz ACES fit) and gamma (sqrt): linear -> display colour
vec3 finish(vec3 col, vec3 p, vec3 eye) {
    float fog = 1.0 - exp(-max(length(eye - p) - 8.0, 0.0) * 0.025);
    vec3 x = mix(col, FOG, fog) * 0.95;
    return sqrt(clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0));
}
