#version 330 core
// Depth-only pass into the shadow map; colour is not written.
void main() {}
