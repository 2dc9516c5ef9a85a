#version 450
#include "common.glsl"
layout (local_size_x = 64) in;
layout (binding = 0) buffer a_blob { sfpvec4 a_blob_data[]; };
void main()
{
    const int i = int(gl_GlobalInvocationID.x);
    buffer_st4(a_blob_data, i, buffer_ld4(a_blob_data, i) * afp(FACTOR));
}
