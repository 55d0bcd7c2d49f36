#version 330 core
// Fighters' shadows: every limb vertex projected along the sun onto the floor
// (planar projected shadows; a stencil test keeps overlapping limbs from
// darkening twice).  Parts higher above the floor cast a lighter shadow.
layout(location = 0) in vec3 a_pos;
layout(location = 3) in float a_slot;

uniform mat4 u_limb[32];
uniform mat4 u_view_proj;
uniform vec3 u_sun_dir;          // unit vector toward the sun
uniform float u_floor_y;

out float v_height;

void main() {
    vec4 w = u_limb[int(a_slot + 0.5)] * vec4(a_pos, 1.0);
    float h = max(w.y - u_floor_y, 0.0);
    v_height = h;
    vec3 p = vec3(w.x - u_sun_dir.x * h / u_sun_dir.y, u_floor_y + 0.004, w.z - u_sun_dir.z * h / u_sun_dir.y);
    gl_Position = u_view_proj * vec4(p, 1.0);
}
