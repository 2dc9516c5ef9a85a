// runner shader.spv groups file0 [file1 ...]: binds file i as storage buffer binding i,
// dispatches groups x 1 x 1, writes results back into the files.
#include <vulkan/vulkan.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CK(x) do { VkResult r_ = (x); if (r_ != VK_SUCCESS) { fprintf(stderr, "%s: %d\n", #x, r_); exit(1); } } while (0)
static void *slurp(const char *p, size_t *n) { FILE *f = fopen(p, "rb"); if (!f) { perror(p); exit(1); } fseek(f, 0, SEEK_END); *n = ftell(f); fseek(f, 0, SEEK_SET); void *b = malloc(*n ? *n : 1); fread(b, 1, *n, f); fclose(f); return b; }
int main(int argc, char **argv) {
  int nb = argc - 3; int groups = atoi(argv[2]);
  VkApplicationInfo ai = { VK_STRUCTURE_TYPE_APPLICATION_INFO, 0, "rt", 1, "rt", 1, VK_API_VERSION_1_2 };
  VkInstanceCreateInfo ici = { VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, 0, 0, &ai };
  VkInstance inst; CK(vkCreateInstance(&ici, 0, &inst));
  uint32_t np = 8; VkPhysicalDevice pds[8]; CK(vkEnumeratePhysicalDevices(inst, &np, pds));
  VkPhysicalDevice pd = pds[0];
  VkPhysicalDeviceVulkan12Features f12 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES };
  VkPhysicalDeviceVulkan11Features f11 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12 };
  VkPhysicalDeviceFeatures2 f2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11 };
  vkGetPhysicalDeviceFeatures2(pd, &f2);
  float prio = 1; VkDeviceQueueCreateInfo qci = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, 0, 0, 0, 1, &prio };
  VkDeviceCreateInfo dci = { VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f2, 0, 1, &qci };
  VkDevice dev; CK(vkCreateDevice(pd, &dci, 0, &dev));
  VkQueue q; vkGetDeviceQueue(dev, 0, 0, &q);
  VkPhysicalDeviceMemoryProperties mp; vkGetPhysicalDeviceMemoryProperties(pd, &mp);
  uint32_t mt = 0; for (uint32_t i = 0; i < mp.memoryTypeCount; i++) if ((mp.memoryTypes[i].propertyFlags & 6) == 6) { mt = i; break; }
  VkBuffer bufs[16]; VkDeviceMemory mems[16]; size_t sizes[16]; void *maps[16];
  VkDescriptorSetLayoutBinding lb[16];
  for (int i = 0; i < nb; i++) {
    void *d = slurp(argv[3 + i], &sizes[i]);
    VkBufferCreateInfo bci = { VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, 0, 0, sizes[i], VK_BUFFER_USAGE_STORAGE_BUFFER_BIT };
    CK(vkCreateBuffer(dev, &bci, 0, &bufs[i]));
    VkMemoryRequirements mr; vkGetBufferMemoryRequirements(dev, bufs[i], &mr);
    VkMemoryAllocateInfo mai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, 0, mr.size, mt };
    CK(vkAllocateMemory(dev, &mai, 0, &mems[i])); CK(vkBindBufferMemory(dev, bufs[i], mems[i], 0));
    CK(vkMapMemory(dev, mems[i], 0, sizes[i], 0, &maps[i])); memcpy(maps[i], d, sizes[i]); free(d);
    lb[i] = (VkDescriptorSetLayoutBinding){ i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, 0 };
  }
  VkDescriptorSetLayoutCreateInfo dlci = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, 0, 0, nb, lb };
  VkDescriptorSetLayout dsl; CK(vkCreateDescriptorSetLayout(dev, &dlci, 0, &dsl));
  VkPipelineLayoutCreateInfo plci = { VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, 0, 0, 1, &dsl };
  VkPipelineLayout pl; CK(vkCreatePipelineLayout(dev, &plci, 0, &pl));
  size_t cn; void *code = slurp(argv[1], &cn);
  VkShaderModuleCreateInfo smci = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, 0, 0, cn, code };
  VkShaderModule sm; CK(vkCreateShaderModule(dev, &smci, 0, &sm));
  VkComputePipelineCreateInfo cpci = { VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, 0, 0, { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, 0, 0, VK_SHADER_STAGE_COMPUTE_BIT, sm, "main" }, pl };
  VkPipeline pipe; CK(vkCreateComputePipelines(dev, 0, 1, &cpci, 0, &pipe));
  VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nb };
  VkDescriptorPoolCreateInfo dpci = { VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, 0, 0, 1, 1, &ps };
  VkDescriptorPool dp; CK(vkCreateDescriptorPool(dev, &dpci, 0, &dp));
  VkDescriptorSetAllocateInfo dsai = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, 0, dp, 1, &dsl };
  VkDescriptorSet ds; CK(vkAllocateDescriptorSets(dev, &dsai, &ds));
  for (int i = 0; i < nb; i++) {
    VkDescriptorBufferInfo dbi = { bufs[i], 0, VK_WHOLE_SIZE };
    VkWriteDescriptorSet w = { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, 0, ds, i, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0, &dbi };
    vkUpdateDescriptorSets(dev, 1, &w, 0, 0);
  }
  VkCommandPoolCreateInfo cpi = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, 0, 0, 0 };
  VkCommandPool cp; CK(vkCreateCommandPool(dev, &cpi, 0, &cp));
  VkCommandBufferAllocateInfo cbai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, 0, cp, 0, 1 };
  VkCommandBuffer cb; CK(vkAllocateCommandBuffers(dev, &cbai, &cb));
  VkCommandBufferBeginInfo cbbi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
  CK(vkBeginCommandBuffer(cb, &cbbi));
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &ds, 0, 0);
  vkCmdDispatch(cb, groups, 1, 1);
  CK(vkEndCommandBuffer(cb));
  VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, 0, 0, 0, 0, 1, &cb };
  CK(vkQueueSubmit(q, 1, &si, 0)); CK(vkQueueWaitIdle(q));
  for (int i = 0; i < nb; i++) { FILE *f = fopen(argv[3 + i], "wb"); fwrite(maps[i], 1, sizes[i], f); fclose(f); }
  printf("ok %s\n", pd ? "" : "");
  return 0;
}
