// What bounds a kernel: the class every classification (classify.h), the kernel-name
// rules (kernel_name_rules.h) and the bound mix of a kernel summary share. A header of
// its own so that those that only name the class need not see the classifier.
#pragma once

namespace kraken {

enum class Boundness { kCompute, kMemory, kLatency, kMixed, kUnknown };

const char* BoundnessName(Boundness bound);  // "compute", "memory", ... (defined in classify.cc)

}  // namespace kraken
