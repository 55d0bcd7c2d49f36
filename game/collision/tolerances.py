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
#: Smallest area of an exposed piece of a box side that is kept as a face
#: (``Compound.faces``: covered pieces are dropped).
MIN_FACE_AREA = 1e-9
#: Distance below which two coordinates are taken as the same plane (B9 merge).
PLANE_EPS = 1e-7
#: A new cut line of a compound face (B4) closer than this to an existing edge
#: of the same face snaps onto that edge, so that no sliver below
#: MIN_BOX_EXTENT can appear in later splits or merges (B9).  > MIN_BOX_EXTENT.
SNAP_EPS = 1e-5

# --- Method C (scene quadtree, AABB trees, ray casts) ---------------------
#: Relative padding of every AABB-tree box and quadtree rectangle (times the
#: box's largest extent plus its largest |coordinate|).  Boxes are inflated so that a triangle hit accepted
#: with RAY_EDGE_EPS slack is never culled by a box test rounded the other way.
BOX_PAD_REL = 1e-7
#: Absolute part of the same padding (world units).
BOX_PAD_ABS = 1e-9
#: Stand-in for 1/0 in slab tests: an axis-parallel ray gets this huge inverse
#: direction component (finite, so 0 * INV_DIR_HUGE never makes a NaN).
INV_DIR_HUGE = 1e300
#: Tolerance when a loaded model file's stored AABB is checked against the AABB
#: recomputed from its triangles (C5), relative to the model's size.
FILE_AABB_REL = 1e-9
# --- end of Method C ---
