#version 330 core
// Static arena geometry in world space, flat normals, a material id per vertex;
// lit per vertex (see lighting.glsl).
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_color;
layout(location = 3) in float a_mat;

uniform mat4 u_view_proj;
uniform vec3 u_eye;
uniform vec3 u_sun_dir;

out vec3 v_world;
out vec3 v_color;
out float v_aa;
uniform float u_pixel_angle;   // radians per pixel at the screen centre

#include lighting.glsl

#ifdef FADE
// see-through obstacles (lit.frag): the fade of the box holding this vertex, if any
uniform vec3 u_fade_lo[4];
uniform vec3 u_fade_hi[4];
uniform float u_fade[4];
uniform int u_n_fade;          // boxes in use (1-4)
flat out float v_fade;
#endif

void main() {
    int mat = int(a_mat + 0.5);
    float spec_k = mat == 1 ? 0.25 : 0.04;
    // darker towards the base of walls, pillars, crates and props (cheap ambient occlusion)
    float ao = mat == 1 ? 1.0 : mix(mat == 3 ? 0.5 : 0.45, 1.0, clamp(a_pos.y * (mat == 3 ? 2.5 : 0.8), 0.0, 1.0));
    // a crate's or the barrel's outside (materials 3, 5) also gets the light the floor throws
    // back, so a side in shade reads as wood (and a hole in it as a dark opening), not as black;
    // its inside (material 9, seen through a hole) lies in the crate's own shade: no sun, and
    // only part of the sky reaches in
    vec3 sun = u_sun_dir;
    if (mat == 3 || mat == 5) {
        ao *= 2.2;
    } else if (mat == 9) {
        sun = vec3(0.0);
        ao = 0.45;
    }
    v_color = finish(light_vertex(a_color, a_pos, a_normal, u_eye, sun, spec_k, ao), a_pos, u_eye);
    v_world = a_pos;
    v_aa = max(length(u_eye - a_pos) * u_pixel_angle, 1e-4);
    gl_Position = u_view_proj * vec4(a_pos, 1.0);
#ifdef FADE
    v_fade = 0.0;
    for (int i = 0; i < u_n_fade; ++i) {
        if (all(greaterThanEqual(a_pos, u_fade_lo[i])) && all(lessThanEqual(a_pos, u_fade_hi[i])))
            v_fade = max(v_fade, u_fade[i]);
    }
#endif
}
