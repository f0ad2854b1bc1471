// `nvidia-smi dmon` (per device) and `nvidia-smi pmon` (per process): whitespace tables
// under two '#' lines, column names then units:
//
//   # gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk
//   # Idx      W      C      C      %      %      %      %      %      %    MHz    MHz
//       0    631     63     57    100     10      0      0      0      0   2619   1980
//
// Columns depend on the version and on -s (rxpci/txpci with -s t, fb/bar1 with -s m);
// -o D/T/DT puts Date (YYYYMMDD) and/or Time (HH:MM:SS) first. "-" = not available.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "importers/nvidia_smi/capture_sections.h"
#include "importers/nvidia_smi/profile_builder.h"

namespace kraken::nvidia_smi {

// The column names of a dmon/pmon header line ("# gpu pwr ...", "#Date Time gpu ..."),
// or nullopt when `line` is not one.
std::optional<std::vector<std::string>> ParseMonitorHeader(std::string_view line);

// Reads one dmon or pmon section. Without -o T/DT the rows carry no clock: sample n is put
// at n x interval after the end of the previous such section of the same phase, where the
// interval is -d from the section's command, else dmon's default of 1 s (an assumption the
// profile's attributes record). Returns false when the section has no header.
bool ParseMonitor(const Section& section, ProfileBuilder& builder);

}  // namespace kraken::nvidia_smi
