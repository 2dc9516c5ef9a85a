#version 450
// The typed item form in a user's crate: push constants, a `psc()`
// specialization constant, sfp storage in whatever variant the device picks.
layout (constant_id = 0) const int n = 0;
layout (local_size_x = 64) in;
layout (binding = 0) readonly buffer bottom_blob { sfpvec4 bottom_blob_data[]; };
layout (binding = 1) writeonly buffer top_blob { sfpvec4 top_blob_data[]; };
layout (push_constant) uniform parameter { int n; float scale; vec4 bias; } p;

void main()
{
    const int gx = int(gl_GlobalInvocationID.x);
    if (gx >= psc(n))
        return;
    afpvec4 v = buffer_ld4(bottom_blob_data, gx);
    buffer_st4(top_blob_data, gx, v * afp(p.scale) + afpvec4(p.bias));
}
