#version 450
// Unnamed, entry point "main", with a specialization constant: named by its stable identity
// "cs_xxxxxxxx". v[i] = v[i] * K with K specialized to 1.0 by vk_compute (a no-op).
layout(local_size_x = 64) in;
layout(constant_id = 0) const float K = 2.0;
layout(set = 0, binding = 0) buffer Data { float v[]; } data;
layout(push_constant) uniform Push { float factor; uint n; } p;
void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < p.n)
		data.v[i] *= K;
}
