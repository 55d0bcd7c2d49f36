"""Every numeric tolerance of the collision package, in one place.

Geometry code imports these names; nothing else in ``game.collision`` spells
a bare epsilon.
"""

#: Ray-triangle determinant below which a ray counts as parallel to a triangle.
RAY_PARALLEL_EPS = 1e-12
#: Barycentric slack so that rays grazing a shared edge hit one of the triangles.
RAY_EDGE_EPS = 1e-9
#: Smallest extent (world units) a compound's small box may have (B9).
MIN_BOX_EXTENT = 1e-6
#: Smallest area of a split face that is kept (B4: empty pieces are dropped).
MIN_FACE_AREA = 1e-9
#: Distance below which two coordinates are taken as the same plane (B9 merge).
PLANE_EPS = 1e-7
