// prepare(): the resolver's batch entry, for kernels wanted ready before they are launched.
#include "triton_jit/prepare.h"

#include "resolve/resolver.h"

namespace triton_jit {

PrepareReport prepare(const std::vector<KernelRequest>& requests, const PrepareOptions& options) {
  return detail::Resolver::resolve_batch(requests, options, "prepare", nullptr);
}

}  // namespace triton_jit
