#version 330 core
// Shared lighting for fighters and arena: sun with a PCF shadow map, sky/ground
// hemisphere ambient, Blinn-Phong specular, a rim light on the fighters,
// procedural patterns per material, contact darkening under the fighters,
// distance fog, filmic tone map and gamma.
in vec3 v_world;
in vec3 v_normal;
in vec3 v_color;
in float v_mat;
in vec4 v_light;

uniform vec3 u_eye;
uniform vec3 u_sun_dir;          // unit vector toward the sun
uniform sampler2DShadow u_shadow;
uniform float u_shadow_texel;
uniform vec3 u_feet[2];          // fighters' ground points, for contact shadows
uniform vec4 u_flash[2];         // per fighter: rgb tint, amount (hit flash)

out vec4 frag;

const vec3 SUN = vec3(1.00, 0.92, 0.80) * 2.0;
const vec3 SKY = vec3(0.42, 0.55, 0.78) * 0.85;
const vec3 GROUND = vec3(0.30, 0.25, 0.22) * 0.6;
const vec3 FOG = vec3(0.62, 0.70, 0.82);

float hash(vec2 p) { return fract(sin(dot(p, vec2(127.1, 311.7))) * 43758.5453); }

float grid_line(float x, float width) {
    float d = abs(fract(x - 0.5) - 0.5);
    float w = fwidth(x) + 1e-4;
    return 1.0 - smoothstep(width - w, width + w, d);
}

float shadow_at(vec4 lp, float bias) {
    vec3 p = lp.xyz / lp.w * 0.5 + 0.5;
    if (p.x < 0.0 || p.x > 1.0 || p.y < 0.0 || p.y > 1.0 || p.z > 1.0) return 1.0;
    float s = 0.0;
    for (int i = -1; i <= 1; i++)
        for (int j = -1; j <= 1; j++)
            s += texture(u_shadow, vec3(p.xy + vec2(i, j) * u_shadow_texel * 1.2, p.z - bias));
    return s / 9.0;
}

vec3 srgb_to_lin(vec3 c) { return pow(c, vec3(2.2)); }

vec3 tonemap(vec3 x) {  // Narkowicz ACES fit
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}

void main() {
    int mat = int(v_mat + 0.5);
    vec3 n = normalize(v_normal);
    vec3 V = normalize(u_eye - v_world);
    if (dot(n, V) < 0.0 && mat < 10) n = -n;    // arena triangles of either winding
    vec3 albedo = srgb_to_lin(v_color);
    float spec_k = 0.15, shin = 24.0, ao = 1.0;

    if (mat == 1) {            // floor: stone tiles, grout, a painted ring at the centre
        vec2 xz = v_world.xz;
        vec2 tile = floor(xz);
        float var = hash(tile);
        albedo *= 0.86 + 0.22 * var;
        float checker = mod(tile.x + tile.y, 2.0);
        albedo *= 0.93 + 0.07 * checker;
        float grout = max(grid_line(xz.x, 0.015), grid_line(xz.y, 0.015));
        albedo = mix(albedo, albedo * 0.45, grout);
        float r = length(xz);
        float ring = 1.0 - smoothstep(0.05 - fwidth(r), 0.05 + fwidth(r), abs(r - 5.0));
        float ring2 = 1.0 - smoothstep(0.025 - fwidth(r), 0.025 + fwidth(r), abs(r - 5.25));
        albedo = mix(albedo, srgb_to_lin(vec3(0.85, 0.70, 0.25)), max(ring, ring2) * 0.85);
        float edge = max(abs(xz.x), abs(xz.y));
        albedo *= mix(1.0, 0.72, smoothstep(10.0, 14.8, edge));
        spec_k = 0.25; shin = 40.0;
        for (int i = 0; i < 2; i++) {
            float d = length(v_world.xz - u_feet[i].xz);
            ao *= 1.0 - 0.55 * exp(-d * d / 0.09);
        }
    } else if (mat == 2) {     // walls: stone courses, darker at the base
        float course = grid_line(v_world.y * 2.0, 0.03);
        float along = abs(n.x) > 0.5 ? v_world.z : v_world.x;
        float brick = grid_line(along * 1.0 + 0.5 * floor(v_world.y * 2.0), 0.015);
        albedo *= 0.9 + 0.15 * hash(floor(vec2(along + 0.5 * floor(v_world.y * 2.0), v_world.y * 2.0)));
        albedo = mix(albedo, albedo * 0.55, max(course, brick));
        ao = mix(0.55, 1.0, smoothstep(0.0, 1.2, v_world.y));
    } else if (mat == 3) {     // crates: planks and a dark frame
        float planks = grid_line(v_world.y * 4.0, 0.04);
        albedo *= 0.85 + 0.2 * hash(vec2(floor(v_world.y * 4.0), floor(v_world.x + v_world.z)));
        albedo = mix(albedo, albedo * 0.5, planks);
        ao = mix(0.6, 1.0, smoothstep(0.0, 0.4, v_world.y));
    } else if (mat == 4) {     // pillars: banded stone
        float band = grid_line(v_world.y * 0.8, 0.03);
        albedo = mix(albedo, albedo * 0.6, band);
        ao = mix(0.55, 1.0, smoothstep(0.0, 1.2, v_world.y));
    } else if (mat == 6) {     // banners: cloth with a gold stripe near the bottom
        float stripe = smoothstep(0.02, 0.0, abs(fract(v_world.y * 1.0) - 0.18) - 0.06);
        albedo = mix(albedo, srgb_to_lin(vec3(0.95, 0.75, 0.25)), stripe);
        spec_k = 0.05;
    } else if (mat == 7) {     // grass tufts
        albedo *= 0.8 + 0.4 * hash(floor(v_world.xz * 8.0));
        spec_k = 0.02;
    } else if (mat >= 10) {     // fighters: slightly glossy cloth/skin
        spec_k = 0.35; shin = 32.0;
    } else {
        ao = mix(0.6, 1.0, smoothstep(0.0, 0.5, v_world.y));
    }

    float ndl = max(dot(n, u_sun_dir), 0.0);
    float bias = 0.0015 + 0.003 * (1.0 - ndl);
    float sh = shadow_at(v_light, bias);
    vec3 h = normalize(u_sun_dir + V);
    float spec = pow(max(dot(n, h), 0.0), shin) * spec_k * ndl;
    vec3 hemi = mix(GROUND, SKY, n.y * 0.5 + 0.5);
    vec3 col = albedo * (hemi * ao + SUN * ndl * sh) + SUN * spec * sh;
    if (mat >= 10) {
        float rim = pow(1.0 - max(dot(n, V), 0.0), 3.0);
        col += rim * vec3(0.55, 0.65, 0.9) * 0.55;
    }
    if (mat >= 10) col += u_flash[mat - 10].rgb * u_flash[mat - 10].a;
    float dist = length(u_eye - v_world);
    float fog = 1.0 - exp(-max(dist - 8.0, 0.0) * 0.025);
    col = mix(col, srgb_to_lin(FOG) * 1.1, fog);
    col = tonemap(col * 0.95);
    frag = vec4(pow(col, vec3(1.0 / 2.2)), 1.0);
}
