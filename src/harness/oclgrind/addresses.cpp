// The course's address reader: an Oclgrind plugin that finds where a kernel reads the value
// of a pointer, which is where the OpenCL runtime put a buffer or a local array. The
// simulator puts each buffer at a whole 2^48 and the device wherever its allocator does, so
// code that reads a pointer's value can tell the simulator from the device, and show the
// simulator a technique, or a clean run, that the device never runs. Nothing a
// multiplication needs reads one: offsets are computed from indices.
//
// When a kernel starts, every instruction of its program is read once (not only those that
// run: a branch the simulator's inputs do not take still tells): a pointer converted to an
// integer or made from one (LLVM's ptrtoint and inttoptr, as instructions or inside
// constants: `(ulong)A`, or `A == (__global float *)0x1000000000000`), and a pointer stored
// into global or local memory (from where it could be read back as a number). Each place
// found goes, once, as
//     pointer FILE LINE
// to the file named in LAB_ADDRESSES_OUT (not to the kernel's stdout, which its printf could
// forge), and the run stops there: the kernel is refused whatever it would do next, and one
// that would loop under the simulator costs no watchdog's wait.

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "plugin.h"

namespace {

using namespace oclgrind;

const unsigned GLOBAL = 1, LOCAL = 3;  // LLVM's address spaces as Oclgrind numbers them
const int STOPPED = 86;                 // the exit status of a run stopped here

bool is_pointer(LLVMValueRef value) {
    return LLVMGetTypeKind(LLVMTypeOf(value)) == LLVM_POINTER_TYPE;
}

bool converts(int opcode) { return opcode == LLVM_PTR_TO_INT || opcode == LLVM_INT_TO_PTR; }

// Whether an instruction reads a pointer's value: converts one to an integer or an integer
// to one, or stores one into memory that other code could read as a number.
bool reads_a_pointer(LLVMValueRef instruction) {
    int opcode = LLVMGetInstructionOpcode(instruction);
    if (converts(opcode)) return true;
    int operands = LLVMGetNumOperands(instruction);
    for (int i = 0; i < operands; i++) {
        LLVMValueRef op = LLVMGetOperand(instruction, i);
        if (op != nullptr && LLVMIsAConstantExpr(op) != nullptr &&
            converts(LLVMGetConstOpcode(op))) {
            return true;
        }
    }
    if (opcode == LLVM_STORE && operands == 2) {
        LLVMValueRef value = LLVMGetOperand(instruction, 0);
        LLVMValueRef where = LLVMGetOperand(instruction, 1);
        unsigned space = LLVMGetPointerAddressSpace(LLVMTypeOf(where));
        return is_pointer(value) && (space == GLOBAL || space == LOCAL);
    }
    return false;
}

class Addresses : public Plugin {
  public:
    explicit Addresses(const Context *context) : Plugin(context) {}

    void kernelBegin(const KernelInvocation *invocation) override {
        const char *out = std::getenv("LAB_ADDRESSES_OUT");
        if (out == nullptr) return;
        LLVMValueRef kernel = (LLVMValueRef)invocation->getKernel()->getFunction();
        if (kernel == nullptr) return;
        std::lock_guard<std::mutex> lock(mutex_);
        LLVMModuleRef module = LLVMGetGlobalParent(kernel);
        if (!read_.insert(module).second) return;
        std::set<std::pair<std::string, unsigned>> found;
        for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = LLVMGetNextFunction(f)) {
            for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
                for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
                    if (!reads_a_pointer(i)) continue;
                    unsigned length = 0;
                    const char *file = LLVMGetDebugLocFilename(i, &length);
                    found.insert(std::make_pair(file ? std::string(file, length) : std::string(),
                                                LLVMGetDebugLocLine((const llvm::Instruction *)i)));
                }
            }
        }
        if (found.empty()) return;
        if (FILE *f = std::fopen(out, "a")) {
            for (auto &at : found) {
                std::fprintf(f, "pointer %s %u\n", at.first.empty() ? "-" : at.first.c_str(),
                             at.second);
            }
            std::fclose(f);
        }
        std::fflush(nullptr);
        std::_Exit(STOPPED);
    }

    bool isThreadSafe() const override { return true; }

  private:
    std::mutex mutex_;
    std::set<LLVMModuleRef> read_;
};

}  // namespace

oclgrind::Plugin *make_addresses(oclgrind::Context *context) { return new Addresses(context); }
