#version 450
// v[i] *= factor: the labelled "scale_pass" dispatches of vk_compute.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { float v[]; } data;
layout(push_constant) uniform Push { float factor; uint n; } p;
void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n)
		data.v[i] *= p.factor;
}
