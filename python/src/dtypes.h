#pragma once

#include <Python.h>

#include <cstdint>
#include <string_view>

#include "triton_jit/dtype.h"

// Element types from what frameworks say: array-interface typestrs, DLPack type codes, and dtype
// objects (torch.float16, triton.language.float16, numpy's dtypes, names).
namespace triton_jit::python {

// A typestr ("<f4", "|b1") as __cuda_array_interface__ writes it; false when Triton has no such
// pointer type.
bool dtype_of_typestr(std::string_view typestr, DType* out);

// A DLPack (code, bits, lanes); false when Triton has no such pointer type.
bool dtype_of_dlpack(uint8_t code, uint8_t bits, uint16_t lanes, DType* out);

// The dtype a dtype object stands for: torch.float16, triton.language.float16, a numpy dtype, a
// typestr ('<f2') or a name ('fp16', 'float16'); false when there is none. `torch_spelling`: the
// object is torch's (Triton keys torch.float16 and tl.float16 apart). Objects other than strings
// are remembered by identity, so a call maps its tensors' dtypes without formatting.
bool dtype_of(PyObject* dtype, DType* out, bool* torch_spelling);

}  // namespace triton_jit::python
