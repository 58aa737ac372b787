#version 450
// Dispatch-heavy benchmark kernel: `iters` dependent multiply-adds per invocation, so the
// duration of one dispatch is tuned from the host.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) buffer Data { float v[]; } data;
layout(push_constant) uniform Push { uint iters; uint n; } p;
void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= p.n)
		return;
	float x = data.v[i];
	for (uint k = 0; k < p.iters; k++)
		x = x * 0.999999 + 0.5;
	data.v[i] = x;
}
