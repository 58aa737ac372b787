/*
 * layer.c - VK_LAYER_RENACER_timing: loader interface, instance and device creation.
 *
 * The loader negotiates interface version 2 through vkNegotiateLoaderLayerInterfaceVersion,
 * the only symbol the library exports, and then reaches everything through the returned
 * vkGetInstanceProcAddr / vkGetDeviceProcAddr (LoaderLayerInterface.md, "Layer Version
 * Negotiation" and "Layer Dispatch Initialization").
 *
 * At vkCreateDevice the layer adds what it needs to a copy of the create info: the
 * VK_EXT_calibrated_timestamps extension when offered with a CLOCK_MONOTONIC domain, and
 * hostQueryReset (core 1.2 feature or VK_EXT_host_query_reset) when offered and the
 * application's own feature structures do not already decide it. If the driver refuses the
 * modified create info, the application's own create info is used unchanged and the layer
 * falls back to in-stream resets and the causal clock mapping.
 *
 * Without RENACER_VK_DIR in the environment the layer is inert: it hands out the next
 * layer's functions for everything but device destruction.
 */
#include "state.h"

#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance,
									  const char *name);
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice device,
									const char *name);

/* ---- Hook tables ---------------------------------------------------------------------- */

struct hook {
	const char *name;      /* "vkCmdDispatch" */
	PFN_vkVoidFunction fn; /* layer_CmdDispatch */
	size_t next;           /* offset of the next function in struct dev_table */
	enum hook_when when;   /* when it is handed out */
};

static const struct hook hooks[] = {
#define X(n, w) { "vk" #n, (PFN_vkVoidFunction)layer_##n, offsetof(struct dev_table, n), w },
	RN_DEVICE_HOOKS(X)
#undef X
};

/* Extension aliases of hooked core functions: same hook, next function under either name. */
static const struct {
	const char *alias; /* extension name of the command */
	const char *core;  /* core name, in hooks[] */
} aliases[] = {
	{ "vkQueueSubmit2KHR", "vkQueueSubmit2" },
	{ "vkCmdCopyBuffer2KHR", "vkCmdCopyBuffer2" },
	{ "vkCmdDispatchBaseKHR", "vkCmdDispatchBase" },
	{ "vkCmdBeginRenderPass2KHR", "vkCmdBeginRenderPass2" },
	{ "vkCmdEndRenderPass2KHR", "vkCmdEndRenderPass2" },
	{ "vkCmdBeginRenderingKHR", "vkCmdBeginRendering" },
	{ "vkCmdEndRenderingKHR", "vkCmdEndRendering" },
	{ "vkBindBufferMemory2KHR", "vkBindBufferMemory2" },
};

static const struct hook *find_hook(const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].alias))
			name = aliases[i].core;
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++)
		if (!strcmp(name, hooks[i].name))
			return &hooks[i];
	return NULL;
}

/* Whether `h` is handed out for a device with configuration `configured` in `mode`. */
static bool hook_applies(const struct hook *h, bool configured, enum rn_vk_mode mode)
{
	if (!configured)
		return !strcmp(h->name, "vkDestroyDevice");
	return h->when == HOOK_ALWAYS || mode == RN_VK_MODE_DISPATCH;
}

/* ---- Instance ------------------------------------------------------------------------- */

static bool has_ext(const char *const *names, uint32_t n, const char *ext)
{
	for (uint32_t i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], ext))
			return true;
	return false;
}

static void map_physical_devices(struct layer_instance *inst)
{
	VkPhysicalDevice *pd;
	uint32_t n = 0;

	if (inst->vk.EnumeratePhysicalDevices(inst->instance, &n, NULL) != VK_SUCCESS || !n)
		return;
	pd = calloc(n, sizeof(*pd));
	if (!pd)
		return;
	if (inst->vk.EnumeratePhysicalDevices(inst->instance, &n, pd) >= 0)
		for (uint32_t i = 0; i < n; i++)
			map_put(OBJ_PHYSICAL_DEVICE, HANDLE(pd[i]), inst);
	free(pd);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateInstance(const VkInstanceCreateInfo *info,
							   const VkAllocationCallbacks *alloc,
							   VkInstance *pInstance)
{
	VkLayerInstanceCreateInfo *chain = (VkLayerInstanceCreateInfo *)info->pNext;
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkCreateInstance create;
	struct layer_instance *inst;
	VkResult r;

	while (chain &&
	       !(chain->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
		 chain->function == VK_LAYER_LINK_INFO))
		chain = (VkLayerInstanceCreateInfo *)chain->pNext;
	if (!chain || !chain->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	/* Advance the link for the next layer (LoaderLayerInterface.md, "Layer Dispatch
	 * Initialization"). */
	chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;
	r = create(info, alloc, pInstance);
	if (r != VK_SUCCESS)
		return r;

	inst = calloc(1, sizeof(*inst));
	if (!inst)
		goto out_destroy;
	inst->instance = *pInstance;
	inst->vk.GetInstanceProcAddr = gipa;
#define X(n) inst->vk.n = (PFN_vk##n)gipa(*pInstance, "vk" #n);
	RN_INSTANCE_FUNCS(X)
#undef X
	inst->api_version = info->pApplicationInfo && info->pApplicationInfo->apiVersion ?
		info->pApplicationInfo->apiVersion :
		VK_API_VERSION_1_0;
	if (inst->api_version >= VK_API_VERSION_1_1) {
		inst->props2 = true;
		inst->vk.GetPhysicalDeviceProperties2 =
			(PFN_vkGetPhysicalDeviceProperties2)gipa(*pInstance,
								 "vkGetPhysicalDeviceProperties2");
		inst->vk.GetPhysicalDeviceFeatures2 =
			(PFN_vkGetPhysicalDeviceFeatures2)gipa(*pInstance,
							       "vkGetPhysicalDeviceFeatures2");
	} else if (has_ext(info->ppEnabledExtensionNames, info->enabledExtensionCount,
			   VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME)) {
		inst->props2 = true;
		inst->vk.GetPhysicalDeviceProperties2 = (PFN_vkGetPhysicalDeviceProperties2)
			gipa(*pInstance, "vkGetPhysicalDeviceProperties2KHR");
		inst->vk.GetPhysicalDeviceFeatures2 =
			(PFN_vkGetPhysicalDeviceFeatures2)gipa(*pInstance,
							       "vkGetPhysicalDeviceFeatures2KHR");
	}
	if (!inst->vk.DestroyInstance || !inst->vk.EnumeratePhysicalDevices ||
	    !inst->vk.GetPhysicalDeviceProperties ||
	    !inst->vk.GetPhysicalDeviceQueueFamilyProperties ||
	    !inst->vk.GetPhysicalDeviceMemoryProperties ||
	    !inst->vk.EnumerateDeviceExtensionProperties)
		inst->props2 = false;
	if (inst->props2 &&
	    (!inst->vk.GetPhysicalDeviceProperties2 || !inst->vk.GetPhysicalDeviceFeatures2))
		inst->props2 = false;
	if (map_put(OBJ_INSTANCE, HANDLE(*pInstance), inst))
		goto out_free;
	map_physical_devices(inst);
	return VK_SUCCESS;

out_free:
	free(inst);
out_destroy:
	/* Without state the layer could not dispatch this instance's calls. */
	{
		PFN_vkDestroyInstance destroy =
			(PFN_vkDestroyInstance)gipa(*pInstance, "vkDestroyInstance");

		if (destroy)
			destroy(*pInstance, alloc);
	}
	*pInstance = VK_NULL_HANDLE;
	return VK_ERROR_OUT_OF_HOST_MEMORY;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyInstance(VkInstance instance,
							const VkAllocationCallbacks *alloc)
{
	struct layer_instance *inst;

	if (!instance)
		return;
	inst = map_del(OBJ_INSTANCE, HANDLE(instance));
	if (!inst)
		return;
	map_del_state(inst); /* its physical devices */
	inst->vk.DestroyInstance(instance, alloc);
	free(inst);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDevices(VkInstance instance,
								     uint32_t *count,
								     VkPhysicalDevice *pd)
{
	struct layer_instance *inst = map_get(OBJ_INSTANCE, HANDLE(instance));
	VkResult r = inst->vk.EnumeratePhysicalDevices(instance, count, pd);

	if (pd && r >= 0)
		for (uint32_t i = 0; i < *count; i++)
			map_put(OBJ_PHYSICAL_DEVICE, HANDLE(pd[i]), inst);
	return r;
}

/* ---- Device --------------------------------------------------------------------------- */

/* What the layer adds to vkCreateDevice (decided from the physical device's offers). */
struct device_plan {
	bool calibrated;       /* enable VK_EXT_calibrated_timestamps */
	bool calib_ext_needed; /* ... not yet in the application's list */
	bool host_reset;       /* hostQueryReset will be on */
	bool hqr_ext_needed;   /* add VK_EXT_host_query_reset to the list */
	bool hqr_feature;      /* prepend VkPhysicalDeviceHostQueryResetFeatures */
	bool hqr_core;         /* vkResetQueryPool is core (1.2) rather than EXT */
};

static bool ext_offered(const VkExtensionProperties *e, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(e[i].extensionName, name))
			return true;
	return false;
}

static void plan_device(struct layer_instance *inst, VkPhysicalDevice phys,
			const VkPhysicalDeviceProperties *props, const VkDeviceCreateInfo *info,
			struct device_plan *plan)
{
	uint32_t api =
		props->apiVersion < inst->api_version ? props->apiVersion : inst->api_version;
	VkExtensionProperties *exts = NULL;
	uint32_t next = 0;

	memset(plan, 0, sizeof(*plan));
	if (inst->vk.EnumerateDeviceExtensionProperties(phys, NULL, &next, NULL) == VK_SUCCESS &&
	    next) {
		exts = calloc(next, sizeof(*exts));
		if (!exts ||
		    inst->vk.EnumerateDeviceExtensionProperties(phys, NULL, &next, exts) < 0)
			next = 0;
	}

	/* Calibrated timestamps: both extensions depend on properties2 (vk.xml "depends"). */
	if (inst->props2 && ext_offered(exts, next, VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) &&
	    inst->vk.GetPhysicalDeviceCalibrateableTimeDomainsEXT) {
		VkTimeDomainEXT domains[8];
		uint32_t nd = 8;
		bool dev_dom = false, mono = false;

		if (inst->vk.GetPhysicalDeviceCalibrateableTimeDomainsEXT(phys, &nd, domains) >=
		    0) {
			for (uint32_t i = 0; i < nd; i++) {
				dev_dom |= domains[i] == VK_TIME_DOMAIN_DEVICE_EXT;
				mono |= domains[i] == VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
			}
		}
		plan->calibrated = dev_dom && mono;
		plan->calib_ext_needed = plan->calibrated &&
			!has_ext(info->ppEnabledExtensionNames, info->enabledExtensionCount,
				 VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME);
	}

	/* Host query reset. The application's own feature structs are const: if it passes one
	 * that covers hostQueryReset, its value stands (both in one chain is invalid, VUID-
	 * VkDeviceCreateInfo-pNext-02830). */
	if (layer_config()->reset == RESET_AUTO && inst->props2) {
		VkPhysicalDeviceHostQueryResetFeatures hq = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES
		};
		VkPhysicalDeviceFeatures2 f2 = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &hq
		};
		bool core = api >= VK_API_VERSION_1_2;
		bool ext = ext_offered(exts, next, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
		bool decided = false, app_value = false;

		for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
			if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES) {
				decided = true;
				app_value = ((const VkPhysicalDeviceVulkan12Features *)s)
						    ->hostQueryReset;
			} else if (s->sType ==
				   VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES) {
				decided = true;
				app_value = ((const VkPhysicalDeviceHostQueryResetFeatures *)s)
						    ->hostQueryReset;
			}
		}
		if (core || ext) {
			inst->vk.GetPhysicalDeviceFeatures2(phys, &f2);
			if (decided) {
				plan->host_reset = app_value;
			} else if (hq.hostQueryReset) {
				plan->host_reset = true;
				plan->hqr_feature = true;
			}
			plan->hqr_core = core;
			plan->hqr_ext_needed = plan->host_reset && !core &&
				!has_ext(info->ppEnabledExtensionNames, info->enabledExtensionCount,
					 VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
			if (plan->host_reset && !core && !ext)
				plan->host_reset = false;
		}
	}
	free(exts);
}

static void fill_device_table(struct layer_device *dev, PFN_vkGetDeviceProcAddr gdpa,
			      const struct device_plan *plan)
{
	VkDevice d = dev->device;

	dev->vk.GetDeviceProcAddr = gdpa;
#define X(n) dev->vk.n = (PFN_vk##n)gdpa(d, "vk" #n);
	RN_DEVICE_FUNCS(X)
#undef X
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		const struct hook *h = find_hook(aliases[i].core);
		PFN_vkVoidFunction *slot = (PFN_vkVoidFunction *)((char *)&dev->vk + h->next);

		if (!*slot)
			*slot = gdpa(d, aliases[i].alias);
	}
	if (plan->host_reset)
		dev->vk.ResetQueryPool = (PFN_vkResetQueryPool)
			gdpa(d, plan->hqr_core ? "vkResetQueryPool" : "vkResetQueryPoolEXT");
	if (!plan->calibrated)
		dev->vk.GetCalibratedTimestampsEXT = NULL;
}

static void describe_device(struct layer_device *dev, struct layer_instance *inst,
			    VkPhysicalDevice phys, const VkPhysicalDeviceProperties *props,
			    struct rn_vk_rec_device *rec)
{
	VkQueueFamilyProperties fam[RN_VK_MAX_FAMILIES];
	uint32_t nfam = RN_VK_MAX_FAMILIES;

	memset(rec, 0, sizeof(*rec));
	rec->device = dev->id;
	rec->vendor_id = props->vendorID;
	rec->device_id = props->deviceID;
	rec->driver_version = props->driverVersion;
	rec->api_version = props->apiVersion;
	rec->timestamp_period_ns = props->limits.timestampPeriod;
	rec->mode = dev->mode;
	rec->flags = (dev->host_reset ? RN_VK_DEV_HOST_RESET : 0) |
		(dev->calibrated ? RN_VK_DEV_CALIBRATED : 0);
	memcpy(rec->name, props->deviceName,
	       sizeof(props->deviceName) < RN_VK_NAME_MAX ? sizeof(props->deviceName) :
							    RN_VK_NAME_MAX);
	rec->name[RN_VK_NAME_MAX - 1] = 0;
	if (inst->props2 && props->apiVersion >= VK_API_VERSION_1_1) {
		VkPhysicalDeviceIDProperties id = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES
		};
		VkPhysicalDeviceProperties2 p2 = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id
		};

		inst->vk.GetPhysicalDeviceProperties2(phys, &p2);
		memcpy(rec->uuid, id.deviceUUID, 16);
		rec->flags |= RN_VK_DEV_UUID;
	}
	inst->vk.GetPhysicalDeviceQueueFamilyProperties(phys, &nfam, NULL);
	if (nfam > RN_VK_MAX_FAMILIES)
		nfam = RN_VK_MAX_FAMILIES;
	/* VK_INCOMPLETE-style truncation is fine: families past the cap are untimed. */
	inst->vk.GetPhysicalDeviceQueueFamilyProperties(phys, &nfam, fam);
	dev->nfamilies = nfam;
	rec->nfamilies = nfam;
	for (uint32_t i = 0; i < nfam; i++) {
		dev->valid_bits[i] = fam[i].timestampValidBits;
		rec->families[i].valid_bits = fam[i].timestampValidBits;
		rec->families[i].queue_flags = fam[i].queueFlags;
	}
	/* timestampComputeAndGraphics false means some families may lack timestamps; their
	 * timestampValidBits of 0 says which (Vulkan 1.3, 5.1 VkQueueFamilyProperties). */
	if (props->limits.timestampPeriod <= 0)
		for (uint32_t i = 0; i < nfam; i++)
			dev->valid_bits[i] = 0;
	inst->vk.GetPhysicalDeviceMemoryProperties(phys, &dev->mem);
}

/* The loader's link to the next layer in the chain of info, or NULL. */
static VkLayerDeviceCreateInfo *device_link_info(const VkDeviceCreateInfo *info)
{
	VkLayerDeviceCreateInfo *chain = (VkLayerDeviceCreateInfo *)info->pNext;

	while (chain &&
	       !(chain->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
		 chain->function == VK_LAYER_LINK_INFO))
		chain = (VkLayerDeviceCreateInfo *)chain->pNext;
	return chain;
}

/* The application's request info with the extensions and the feature that plan needs added,
 * into copy (hq chained in when the feature is wanted). Returns the extension list copy points
 * to (the caller frees it), or NULL when out of memory: then plan is cleared and copy left as
 * it was. */
static const char **add_to_request(const VkDeviceCreateInfo *info, struct device_plan *plan,
				   VkDeviceCreateInfo *copy,
				   VkPhysicalDeviceHostQueryResetFeatures *hq)
{
	const char **exts = calloc(info->enabledExtensionCount + 2u, sizeof(*exts));
	uint32_t n = info->enabledExtensionCount;

	if (!exts) {
		memset(plan, 0, sizeof(*plan));
		return NULL;
	}
	if (n)
		memcpy(exts, info->ppEnabledExtensionNames, n * sizeof(*exts));
	if (plan->calib_ext_needed)
		exts[n++] = VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME;
	if (plan->hqr_ext_needed)
		exts[n++] = VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME;
	copy->enabledExtensionCount = n;
	copy->ppEnabledExtensionNames = exts;
	if (plan->hqr_feature) {
		hq->pNext = (void *)info->pNext;
		copy->pNext = hq;
	}
	return exts;
}

/* A configured device: its id, its description record, and timing from here on. */
static void start_device(struct layer_device *dev, struct layer_instance *inst,
			 VkPhysicalDevice phys, const VkPhysicalDeviceProperties *props)
{
	struct rn_vk_rec_device rec;

	dev->id = writer_next_device_id();
	describe_device(dev, inst, phys, props, &rec);
	dev->timing = dev->vk.CreateQueryPool && dev->vk.GetQueryPoolResults &&
		dev->vk.CmdWriteTimestamp && dev->vk.CmdResetQueryPool;
	timing_device_start(dev, &rec);
	layer_debug("device %u '%s': mode %d, host reset %d, calibrated %d", dev->id, rec.name,
		    (int)dev->mode, dev->host_reset, dev->calibrated);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice phys,
							 const VkDeviceCreateInfo *info,
							 const VkAllocationCallbacks *alloc,
							 VkDevice *pDevice)
{
	VkLayerDeviceCreateInfo *chain;
	struct layer_instance *inst = map_get(OBJ_PHYSICAL_DEVICE, HANDLE(phys));
	const struct layer_config *cfg = layer_config();
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkGetDeviceProcAddr gdpa;
	PFN_vkCreateDevice create;
	VkPhysicalDeviceProperties props;
	struct device_plan plan;
	VkDeviceCreateInfo copy;
	VkPhysicalDeviceHostQueryResetFeatures hq = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES,
		.hostQueryReset = VK_TRUE,
	};
	const char **exts = NULL;
	struct layer_device *dev;
	VkResult r;

	chain = device_link_info(info);
	if (!chain || !chain->u.pLayerInfo || !inst)
		return VK_ERROR_INITIALIZATION_FAILED;
	gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	gdpa = chain->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	create = (PFN_vkCreateDevice)gipa(inst->instance, "vkCreateDevice");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;

	memset(&plan, 0, sizeof(plan));
	inst->vk.GetPhysicalDeviceProperties(phys, &props);
	copy = *info;
	if (cfg->enabled) {
		plan_device(inst, phys, &props, info, &plan);
		exts = add_to_request(info, &plan, &copy, &hq);
	}
	r = create(phys, &copy, alloc, pDevice);
	if (r != VK_SUCCESS && exts) {
		/* The driver refused our additions: the application's request is what counts. */
		layer_debug("vkCreateDevice with the layer's additions failed (%d), retrying "
			    "without them",
			    (int)r);
		memset(&plan, 0, sizeof(plan));
		r = create(phys, info, alloc, pDevice);
	}
	free(exts);
	if (r != VK_SUCCESS)
		return r;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		goto out_destroy;
	dev->device = *pDevice;
	dev->inst = inst;
	dev->configured = cfg->enabled;
	dev->mode = cfg->mode;
	dev->host_reset = plan.host_reset;
	dev->calibrated = plan.calibrated;
	pthread_mutex_init(&dev->lock, NULL);
	fill_device_table(dev, gdpa, &plan);
	if (!dev->vk.DestroyDevice)
		goto out_free;
	if (dev->host_reset && !dev->vk.ResetQueryPool)
		dev->host_reset = false;
	if (dev->calibrated && !dev->vk.GetCalibratedTimestampsEXT)
		dev->calibrated = false;
	if (map_put(OBJ_DEVICE, HANDLE(*pDevice), dev))
		goto out_free;
	if (cfg->enabled)
		start_device(dev, inst, phys, &props);
	return VK_SUCCESS;

out_free:
	pthread_mutex_destroy(&dev->lock);
	free(dev);
out_destroy : {
	PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)gdpa(*pDevice, "vkDestroyDevice");

	if (destroy)
		destroy(*pDevice, alloc);
}
	*pDevice = VK_NULL_HANDLE;
	return VK_ERROR_OUT_OF_HOST_MEMORY;
}

void layer_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc)
{
	struct layer_device *dev;

	if (!device)
		return;
	dev = map_get(OBJ_DEVICE, HANDLE(device));
	if (!dev)
		return;
	timing_device_stop(dev);
	map_del(OBJ_DEVICE, HANDLE(device));
	dev->vk.DestroyDevice(device, alloc);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

/* ---- Proc addresses ------------------------------------------------------------------- */

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice device,
									const char *name)
{
	struct layer_device *dev;
	const struct hook *h;

	if (!strcmp(name, "vkGetDeviceProcAddr"))
		return (PFN_vkVoidFunction)layer_GetDeviceProcAddr;
	dev = map_get(OBJ_DEVICE, HANDLE(device));
	if (!dev)
		return NULL;
	h = find_hook(name);
	if (h && hook_applies(h, dev->configured, dev->mode)) {
		/* Hand out a hook only for what exists below (NULL stays NULL). */
		if (*(PFN_vkVoidFunction *)((char *)&dev->vk + h->next))
			return h->fn;
		return NULL;
	}
	return dev->vk.GetDeviceProcAddr(device, name);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance,
									  const char *name)
{
	static const struct {
		const char *name;
		PFN_vkVoidFunction fn;
	} inst_hooks[] = {
		{ "vkGetInstanceProcAddr", (PFN_vkVoidFunction)layer_GetInstanceProcAddr },
		{ "vkCreateInstance", (PFN_vkVoidFunction)layer_CreateInstance },
		{ "vkDestroyInstance", (PFN_vkVoidFunction)layer_DestroyInstance },
		{ "vkEnumeratePhysicalDevices",
		  (PFN_vkVoidFunction)layer_EnumeratePhysicalDevices },
		{ "vkCreateDevice", (PFN_vkVoidFunction)layer_CreateDevice },
		{ "vkGetDeviceProcAddr", (PFN_vkVoidFunction)layer_GetDeviceProcAddr },
	};
	const struct layer_config *cfg = layer_config();
	struct layer_instance *inst;
	const struct hook *h;

	for (size_t i = 0; i < sizeof(inst_hooks) / sizeof(inst_hooks[0]); i++)
		if (!strcmp(name, inst_hooks[i].name))
			return inst_hooks[i].fn;
	h = find_hook(name);
	if (h && hook_applies(h, cfg->enabled, cfg->mode))
		return h->fn;
	if (!instance)
		return NULL;
	inst = map_get(OBJ_INSTANCE, HANDLE(instance));
	return inst ? inst->vk.GetInstanceProcAddr(instance, name) : NULL;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v)
{
	if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT)
		return VK_ERROR_INITIALIZATION_FAILED;
	if (v->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	v->loaderLayerInterfaceVersion = 2;
	v->pfnGetInstanceProcAddr = layer_GetInstanceProcAddr;
	v->pfnGetDeviceProcAddr = layer_GetDeviceProcAddr;
	v->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}
