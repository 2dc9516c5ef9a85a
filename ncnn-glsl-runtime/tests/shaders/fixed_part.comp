#version 450
// A block with a fixed-size part before its runtime-sized array, and no push
// constants: the typed form's empty `PushConstants`, the size check.
layout (binding = 0) buffer out_blob { int total; int values[4]; float rest[]; };

void main()
{
    total = values[0] + values[3];
    rest[0] = 1.0;
}
