//! What the driver's compiler made of a pipeline, through
//! `VK_KHR_pipeline_executable_properties`: its statistics (registers,
//! instructions, spills: whatever the driver reports) and any internal
//! representation it shows. Two builds of one kernel (naga's and
//! glslang's SPIR-V) that run at different speeds can be compared here.
//! Needs [`crate::ContextOptions::pipeline_statistics`].

use std::ffi::CStr;

use ash::vk;

use crate::error::{Error, Result};
use crate::pipeline::Pipeline;

/// One executable of a pipeline (a compute pipeline usually has one).
#[derive(Clone, Debug, PartialEq)]
pub struct Executable {
    /// The driver's name for it.
    pub name: String,
    /// The driver's description.
    pub description: String,
    /// Subgroup size it runs with.
    pub subgroup_size: u32,
    /// (name, value) pairs, values printed.
    pub statistics: Vec<(String, String)>,
    /// (name, text) of each internal representation the driver shows as text.
    pub representations: Vec<(String, String)>,
}

fn text(chars: &[std::ffi::c_char]) -> String {
    // SAFETY: Vulkan fills these fixed arrays with NUL-terminated strings.
    unsafe { CStr::from_ptr(chars.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

impl Pipeline {
    /// Its executables as the driver compiled them; an error unless the
    /// context was made with `pipeline_statistics`.
    pub fn executables(&self) -> Result<Vec<Executable>> {
        let ctx = &self.ctx;
        if !ctx.options().pipeline_statistics {
            return Err(Error::bad(
                "pipeline_statistics",
                false,
                "executables need ContextOptions::pipeline_statistics",
            ));
        }
        let ext =
            ash::khr::pipeline_executable_properties::Device::new(&ctx.instance.raw, &ctx.device);
        let info = vk::PipelineInfoKHR::default().pipeline(self.pipeline);
        // SAFETY: with `pipeline_statistics` (checked above) the device has the
        // extension and its pipelineExecutableInfo feature on; `ext` is loaded
        // for it and `self.pipeline` is its live pipeline.
        let props = unsafe { ext.get_pipeline_executable_properties(&info) }
            .map_err(|e| Error::vk("vkGetPipelineExecutablePropertiesKHR", e))?;
        let mut out = Vec::new();
        for (i, p) in props.iter().enumerate() {
            let which = vk::PipelineExecutableInfoKHR::default()
                .pipeline(self.pipeline)
                .executable_index(i as u32);
            // SAFETY: as above; the pipeline was made with CAPTURE_STATISTICS (all
            // are, under `pipeline_statistics`) and `i` is an executable's index.
            let stats = unsafe { ext.get_pipeline_executable_statistics(&which) }
                .map_err(|e| Error::vk("vkGetPipelineExecutableStatisticsKHR", e))?;
            let statistics = stats
                .iter()
                .map(|s| {
                    // SAFETY: `format` says which member of the union is set.
                    let value = unsafe {
                        match s.format {
                            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                                (s.value.b32 != 0).to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::INT64 => {
                                s.value.i64.to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::UINT64 => {
                                s.value.u64.to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => {
                                s.value.f64.to_string()
                            }
                            other => format!("(format {other:?})"),
                        }
                    };
                    (text(&s.name), value)
                })
                .collect();
            out.push(Executable {
                name: text(&p.name),
                description: text(&p.description),
                subgroup_size: p.subgroup_size,
                statistics,
                representations: self.representations(&ext, &which)?,
            });
        }
        Ok(out)
    }

    fn representations(
        &self,
        ext: &ash::khr::pipeline_executable_properties::Device,
        which: &vk::PipelineExecutableInfoKHR<'_>,
    ) -> Result<Vec<(String, String)>> {
        let call = "vkGetPipelineExecutableInternalRepresentationsKHR";
        // First the sizes, then the text into buffers of those sizes.
        // SAFETY: as in `executables`: the pipeline was made with
        // CAPTURE_INTERNAL_REPRESENTATIONS and `which` names one of its executables.
        let sized = unsafe { ext.get_pipeline_executable_internal_representations(which) }
            .map_err(|e| Error::vk(call, e))?;
        let mut buffers: Vec<Vec<u8>> = sized.iter().map(|r| vec![0u8; r.data_size]).collect();
        let mut reps: Vec<vk::PipelineExecutableInternalRepresentationKHR<'_>> = sized
            .iter()
            .zip(buffers.iter_mut())
            .map(|(r, b)| vk::PipelineExecutableInternalRepresentationKHR {
                data_size: r.data_size,
                p_data: b.as_mut_ptr().cast(),
                ..Default::default()
            })
            .collect();
        let mut count = reps.len() as u32;
        let fp = ext
            .fp()
            .get_pipeline_executable_internal_representations_khr;
        // SAFETY: `count` is `reps.len()`; each entry's `p_data` points to a
        // buffer of its `data_size` bytes; `reps` and `buffers` outlive the call.
        let r = unsafe { fp(ext.device(), which, &mut count, reps.as_mut_ptr()) };
        if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
            return Err(Error::vk(call, r));
        }
        Ok(reps
            .iter()
            .zip(&buffers)
            .filter(|(r, _)| r.is_text != 0)
            .map(|(r, b)| {
                let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                (
                    text(&r.name),
                    String::from_utf8_lossy(&b[..end]).into_owned(),
                )
            })
            .collect())
    }
}
