#version 450
// Tests device macros it does not declare, as ncnn's shaders do: the set
// builds one variant per outcome, and the device runs the branches its own
// values pick (tests/device_axes.rs).
layout (local_size_x = 1) in;

layout (binding = 0) writeonly buffer out_blob { uint out_data[]; };

void main()
{
#if ncnn_subgroupSize >= 32
    out_data[0] = 1u;
#else
    out_data[0] = 2u;
#endif
#if ncnn_vendorID == 0x10de
    out_data[1] = 3u;
#elif ncnn_vendorID == 0x10005
    out_data[1] = 4u;
#else
    out_data[1] = 5u;
#endif
#if defined(ncnn_VK_KHR_cooperative_matrix) && ncnn_cooperativeMatrix
    out_data[2] = 6u;
#else
    out_data[2] = 7u;
#endif
#if ncnn_driverID == 13
    out_data[3] = 8u;
#elif ncnn_driverID != 0
    out_data[3] = 9u;
#else
    out_data[3] = 10u;
#endif
#ifdef ncnn_VK_KHR_shader_integer_dot_product
    out_data[4] = 11u;
#else
    out_data[4] = 12u;
#endif
#if ncnn_subgroup_basic && !ncnn_subgroup_partitioned
    out_data[5] = 13u;
#else
    out_data[5] = 14u;
#endif
}
