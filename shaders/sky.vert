#version 330 core
// A screen-wide band at the far plane, from u_y0 (NDC; below it the arena hides
// the sky) to the top; drawn after the scene, depth-tested, so only uncovered
// pixels are shaded.  The view ray is linear in screen position, so it is
// computed per vertex and interpolated.
uniform mat4 u_inv_view;          // camera -> world
uniform vec2 u_proj_scale;        // (1 / P[0][0], 1 / P[1][1])
uniform float u_y0;
out vec3 v_dir;
void main() {
    vec2 p = vec2((gl_VertexID & 1) == 1 ? 1.0 : -1.0, gl_VertexID >= 2 ? 1.0 : u_y0);
    v_dir = mat3(u_inv_view) * vec3(p * u_proj_scale, -1.0);
    gl_Position = vec4(p, 1.0, 1.0);
}
