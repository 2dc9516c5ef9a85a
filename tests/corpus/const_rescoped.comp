#version 450

layout (constant_id = 0) const int op_type = 0;
layout (constant_id = 1) const float slope = 0.1f;

#define shape_constant_id_offset 2
layout (constant_id = shape_constant_id_offset + 0) const int w = 0;
layout (constant_id = shape_constant_id_offset + 1) const int h = 0;
layout (constant_id = shape_constant_id_offset + 2) const int c = 0;
layout (constant_id = shape_constant_id_offset + 3) const int cstep = 0;

layout (local_size_x_id = 233, local_size_y_id = 234, local_size_z_id = 235) in;

layout (binding = 0) buffer bottom_top_blob { sfpvec4 bottom_top_blob_data[]; };

layout (push_constant) uniform parameter
{
    int w;
    int h;
    int c;
    int cstep;
} p;

// An elementwise layer whose branches name their own constants, and names
// them again after the branch: GLSL gives a `switch` body and the single
// statement of an `if`/`else` a scope of their own, so each later
// declaration is a new one and each later use reads the outer name.
void main()
{
    int gx = int(gl_GlobalInvocationID.x);
    int gy = int(gl_GlobalInvocationID.y);
    int gz = int(gl_GlobalInvocationID.z);

    if (gx >= psc(w) || gy >= psc(h) || gz >= psc(c))
        return;

    const int gi = gz * psc(cstep) + gy * psc(w) + gx;

    afpvec4 v = buffer_ld4(bottom_top_blob_data, gi);

    afp hi = afp(3.f);

    switch (op_type)
    {
    case 1:
        const afp lo = afp(-1.f);
        const afp hi = afp(1.f);
        v = clamp(v, afpvec4(lo), afpvec4(hi));
        break;
    case 2:
        const afp alpha = afp(slope);
        v = max(v, v * alpha);
        break;
    default:
        break;
    }

    // after the switch: a new `alpha`, and the outer `hi`
    const afp alpha = afp(0.5f);
    v = v * alpha + afpvec4(hi);

    if (gx < 4) { const int gi4 = gi * 4; v.r = v.r + afp(gi4 % 3); }
    const int gi4 = gi * 4 + 1;
    v.g = v.g + afp(gi4 % 5);

    // an unbraced body is a scope of its own too
    if (gy > psc(h))
        const int gi4 = 0;
    else
        v.b = v.b - afp(gi4 % 7);

    buffer_st4(bottom_top_blob_data, gi, v);
}
