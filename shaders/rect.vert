#version 330 core
// HUD rectangles in window pixels (origin bottom-left), vertical gradient.
layout(location = 0) in vec2 a_corner;      // (0..1, 0..1)
layout(location = 1) in vec4 i_rect;        // x, y, w, h
layout(location = 2) in vec4 i_bottom;      // rgba at the bottom edge
layout(location = 3) in vec4 i_top;         // rgba at the top edge
uniform vec2 u_viewport;
out vec4 v_color;
void main() {
    vec2 p = i_rect.xy + a_corner * i_rect.zw;
    gl_Position = vec4(p / u_viewport * 2.0 - 1.0, 0.0, 1.0);
    v_color = mix(i_bottom, i_top, a_corner.y);
}
