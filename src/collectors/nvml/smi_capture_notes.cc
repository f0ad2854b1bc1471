// WriteNotes (smi_capture_notes.h): the derived capture's header, in the words a reader of
// the .nvml file needs to know what was measured and what was not.
#include "collectors/nvml/smi_capture_notes.h"

#include <string>

namespace kraken::nvml::smi_capture {

// The header: where it came from, what is derived, what is missing.
void WriteNotes(const std::vector<Phase>& phases, int copies, Capture& capture) {
  auto& n = capture.notes;
  n.push_back("Derived from the nvidia-smi capture " + capture.info["source_file"] + " (sha256 " +
              capture.info["source_sha256"] + ")");
  n.push_back("in shared/data/nvidia-smi, NOT recorded through NVML. Written by kraken record-nvml --from-nvidia-smi.");
  if (copies > 1)
    n.push_back(std::to_string(copies) + " copies of its GPU(s): copy k has index k, a UUID (and MIG UUIDs) "
                "ending in k, PCI device number +k, minor number k; values and processes are the same on every copy.");
  std::string phase_list;
  size_t frame_index = 0;
  for (const Phase& phase : phases) {
    phase_list += (phase_list.empty() ? "" : ", ") + phase.name + " = frames " + std::to_string(frame_index) + "-" +
                  std::to_string(frame_index + phase.rows - 1);
    frame_index += phase.rows;
  }
  n.push_back("Frames: the dmon/pmon rows, 1 s apart (dmon's default interval): " + phase_list +
              "; the pause between phases is not kept.");
  n.push_back("start_unix_us: the first -q report's time read as UTC (nvidia-smi prints local time, zone unknown).");
  n.push_back("Per frame (dmon): utilization, power (W -> mW), SM (pclk) and memory clocks, GPU and memory");
  n.push_back("temperature, encoder/decoder; (pmon) process SM/memory utilization, its enc/dec written as 0.");
  n.push_back("Per phase, the same in each of its frames: memory (--query-gpu MiB), PCIe TX/RX (-q KB/s), volatile");
  n.push_back("ECC totals (--query-gpu corrected -> field 3, uncorrected -> field 4), PCIe replays (-q), processes");
  n.push_back("with their MIG instance ids and MIG instance memory (-q); the health fields 142-145 (-q Remapped Rows)");
  n.push_back("and 29-31 (-q Retired Pages), where -q does not print N/A, as unsigned ints.");
  n.push_back("Derived: the architecture code from -q's name; gpm_supported from the architecture (NVML documents GPM");
  n.push_back("for Hopper and newer); cuda_driver_version from \"CUDA Version\"; MIG device names \"<GPU> MIG <profile>\";");
  n.push_back("MIG slice counts from the profile; max_mig_devices = the MIG devices present; NUMA node and CPUs from");
  n.push_back("topo -m; active NVLinks from nvlink -s.");
  n.push_back("Missing (the replay answers NOT_SUPPORTED): energy counter, NVLink throughput counters and link far");
  n.push_back("ends, NVLink error totals, GPM values, SM and core counts of the whole GPU, topology between GPUs, XID");
  n.push_back("events; and what the capture itself prints as \"-\" or N/A (utilization and process utilization in");
  n.push_back("MIG mode, memory temperature on GDDR GPUs, retired pages on Ampere and newer, remapped rows in MIG mode).");
}

}  // namespace kraken::nvml::smi_capture
