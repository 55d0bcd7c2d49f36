#version 330 core
// Arena and fighters: the per-vertex lit colour (lighting.glsl) times a cheap
// procedural pattern per material.  MATERIAL is #defined by the loader: one
// program per material, because a software rasteriser pays for every branch a
// pixel might take.
in vec3 v_world;
in vec3 v_color;          // display colour
in float v_aa;            // world size of a pixel here (per vertex): anti-aliasing width without derivatives

out vec4 frag;

const vec3 GOLD = vec3(1.65, 1.30, 0.45);     // paint, as a multiplier of the lit colour

#ifdef FADE
// A second program of the pillars', crates' and props' materials, used while one fades
// (game/render/occluders.py): a pixel of a faded obstacle is dropped where a 4x4 ordered
// dither falls under 0.7 of its fade (screen-door transparency: no blending, no sorting,
// and what is behind was drawn already or is drawn after).  world.vert finds the fade
// per vertex: an object's triangles lie in its own box.
flat in float v_fade;

// the 4x4 Bayer threshold of this pixel, in (0, 1)
float dither() {
    ivec2 p = ivec2(gl_FragCoord.xy) & 3;
    int xy = p.x ^ p.y;
    return float(((xy & 1) << 3) | ((p.y & 1) << 2) | (xy & 2) | ((p.y >> 1) & 1)) / 16.0 + 1.0 / 32.0;
}
#endif

// 1 on lines of the given half-width at every integer of x (x in pattern units of `scale` metres)
float grid_line(float x, float width, float scale) {
    float d = abs(fract(x - 0.5) - 0.5);
    float w = v_aa * scale;
    return clamp((width + w - d) / (2.0 * w), 0.0, 1.0);
}

void main() {
#ifdef FADE
    if (dither() < 0.7 * v_fade) discard;
#endif
    vec3 k = vec3(1.0);
#if MATERIAL == 1            // floor: 1 m tiles with a tint each, grout, a painted ring
    vec2 xz = v_world.xz;
    // the tile's tint (x 0.80-1.15 of the albedo), applied to the display colour: sqrt of it
    // is what the tone map and gamma make of an albedo factor at the floor's brightness.
    // An integer hash of the tile: the usual fract(sin(...)) is costly per pixel on llvmpipe.
    uvec2 tile = uvec2(ivec2(floor(xz)) + 4096);
    uint h = ((tile.x * 1597334677u) ^ (tile.y * 3812015801u)) * 1597334677u;
    k *= sqrt(0.80 + 0.35 * float(h >> 8u) * (1.0 / 16777216.0));
    vec2 d = abs(fract(xz - 0.5) - 0.5);                          // both grout directions at once
    k *= 1.0 - 0.45 * clamp((0.015 + v_aa - min(d.x, d.y)) / (2.0 * v_aa), 0.0, 1.0);
    float r2 = dot(xz, xz);                                       // ring r = 5 m: |r - 5| ~ |r2 - 25| / 10
    k *= mix(vec3(1.0), GOLD, 0.85 * clamp((0.6 + 10.0 * v_aa - abs(r2 - 25.0)) / (20.0 * v_aa), 0.0, 1.0));
#elif MATERIAL == 2          // walls: stone courses
    float along = (abs(v_world.x) > 14.9 ? v_world.z : v_world.x) + 0.5 * floor(v_world.y * 2.0);
    k *= 1.0 - 0.5 * max(grid_line(v_world.y * 2.0, 0.03, 2.0), grid_line(along, 0.015, 1.0));
#elif MATERIAL == 3          // crates: planks
    k *= 1.0 - 0.55 * grid_line(v_world.y * 4.0, 0.04, 4.0);
#elif MATERIAL == 5          // the barrel: upright staves and two dark iron hoops
    k *= 1.0 - 0.45 * grid_line((v_world.x + v_world.z) * 7.0, 0.05, 7.0);
    float hoop = min(abs(v_world.y - 0.28), abs(v_world.y - 0.92));    // m from the nearer hoop's middle
    k *= 1.0 - 0.6 * clamp((0.045 + v_aa - hoop) / (2.0 * v_aa), 0.0, 1.0);
#elif MATERIAL == 9          // a crate's inside, seen through a hole: planks (lit in shade by world.vert)
    k *= 1.0 - 0.5 * grid_line(v_world.y * 4.0, 0.04, 4.0);
#elif MATERIAL == 8          // splintered wood (the walls of a hole in a crate): streaks of grain
    k *= 0.84 + 0.16 * sin((v_world.x + v_world.z) * 90.0 + 2.0 * sin(v_world.y * 37.0));
#elif MATERIAL == 4          // pillars: banded stone
    k *= 1.0 - 0.45 * grid_line(v_world.y * 0.8, 0.03, 0.8);
#elif MATERIAL == 6          // banners: cloth with a gold stripe near the bottom
    k *= mix(vec3(1.0), GOLD, 1.0 - smoothstep(0.05, 0.07, abs(fract(v_world.y) - 0.18)));
#endif
    frag = vec4(v_color * k, 1.0);
}
