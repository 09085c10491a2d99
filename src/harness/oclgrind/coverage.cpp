// The course's coverage of memory accesses: an Oclgrind plugin that finds every place in a
// kernel's program that reads or writes global or local memory (a load or a store through
// such a pointer, or a call of one of the runtime's functions, such as vload4, with such a
// pointer or an image among its arguments), and every call of the program's own functions
// with such a pointer among its arguments (a helper `at(A, i)` reads A where it is called),
// and which of them ran. Local memory too: a lesson's technique is also what its work-items
// read from their tiles (register tiling), not only what they read from global memory. An access inlined from a helper also marks the calls it was inlined
// at as run, so that the optimised build, which has no call left, says where it ran.
//
// A kernel can tell the simulator from the device in ways no list of names can refuse: the
// simulator's arithmetic is not the device's (its `mad` is fused where PoCL's is not, its
// `sin` rounds otherwise, a float converted out of an integer's range gives another
// integer). A kernel that uses such a difference runs one code under the simulator and
// another on the device; the other code's accesses never run here. The grader reads which
// did not, and asks the device whether it runs them (`crate::grade::coverage`).
//
// Made where LAB_COVERAGE_OUT is set (plugins.cpp), for the programs that hold the kernel
// LAB_COVERAGE_KERNEL names (the lesson's: the host's own programs, its copies for padding
// say, are not the student's); when a kernel ends, every place of those programs goes to the
// file LAB_COVERAGE_OUT names (not to the kernel's stdout, which its printf
// could forge), as
//     access LINE COLUMN ran|never FILE
// (the file last: a name given by `#line` may hold spaces)
// where `ran` says that some work-item of some kernel run in this process executed it, then
//     lanes N
// where N is the lanes past the first of every float multiplication and division of a vector
// type those programs executed (a `float8` product is one `fmul` to the simulator's own count,
// which names instructions only, and eight multiplications: 7 here), then `end`.

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "plugin.h"

namespace {

using namespace oclgrind;

// LLVM's address spaces as Oclgrind numbers them.
const unsigned GLOBAL = 1;
const unsigned LOCAL = 3;

bool watched_pointer(LLVMValueRef value) {
    if (value == nullptr) return false;
    LLVMTypeRef type = LLVMTypeOf(value);
    if (LLVMGetTypeKind(type) != LLVM_POINTER_TYPE) return false;
    unsigned space = LLVMGetPointerAddressSpace(type);
    return space == GLOBAL || space == LOCAL;
}

// Whether an instruction reads or writes global or local memory, or passes a pointer to
// either to a function of the program's own.
bool accesses_memory(LLVMValueRef instruction) {
    switch (LLVMGetInstructionOpcode(instruction)) {
        case LLVM_LOAD:
            return watched_pointer(LLVMGetOperand(instruction, 0));
        case LLVM_STORE:
            return watched_pointer(LLVMGetOperand(instruction, 1));
        case LLVM_CALL: {
            // The runtime's functions (vloadN, vstoreN, read_imagef, ...) are declarations in
            // the program, carried out by the simulator; a function of the kernel's own is
            // read instruction by instruction too, and its call is a place of its own.
            LLVMValueRef callee = LLVMGetCalledValue(instruction);
            if (callee == nullptr || LLVMIsAFunction(callee) == nullptr) return false;
            unsigned arguments = LLVMGetNumArgOperands(instruction);
            for (unsigned i = 0; i < arguments; i++) {
                if (watched_pointer(LLVMGetOperand(instruction, i))) return true;
            }
            return false;
        }
        default:
            return false;
    }
}

typedef std::tuple<std::string, unsigned, unsigned> Place;

class Coverage : public Plugin {
  public:
    explicit Coverage(const Context *context) : Plugin(context) {}

    void kernelBegin(const KernelInvocation *invocation) override {
        const char *name = std::getenv("LAB_COVERAGE_KERNEL");
        if (name == nullptr || invocation->getKernel()->getName() != name) return;
        LLVMValueRef kernel = (LLVMValueRef)invocation->getKernel()->getFunction();
        if (kernel == nullptr) return;
        LLVMModuleRef module = LLVMGetGlobalParent(kernel);
        if (!read_.insert(module).second) return;
        // Every instruction of the program, not only those that run.
        for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = LLVMGetNextFunction(f)) {
            for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
                for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
                    if (unsigned more = lanes_past_the_first(i)) {
                        wide_[(const llvm::Instruction *)i] = more;
                    }
                    if (!accesses_memory(i)) continue;
                    // The instruction's own place, then each call it was inlined at.
                    std::vector<bool *> marks;
                    LLVMMetadataRef at = LLVMInstructionGetDebugLoc(i);
                    if (at == nullptr) marks.push_back(place(Place(std::string(), 0, 0)));
                    for (; at != nullptr; at = LLVMDILocationGetInlinedAt(at)) {
                        marks.push_back(place(Place(file_of(at), LLVMDILocationGetLine(at),
                                                    LLVMDILocationGetColumn(at))));
                    }
                    watched_[(const llvm::Instruction *)i] = marks;
                }
            }
        }
    }

    void instructionExecuted(const WorkItem *, const llvm::Instruction *instruction,
                             const TypedValue &) override {
        if (!wide_.empty()) {
            auto wide = wide_.find(instruction);
            if (wide != wide_.end()) lanes_ += wide->second;
        }
        if (watched_.empty()) return;
        auto found = watched_.find(instruction);
        if (found == watched_.end()) return;
        for (bool *ran : found->second) *ran = true;
        // Once ran, an instruction is not looked up again.
        watched_.erase(found);
    }

    void kernelEnd(const KernelInvocation *) override {
        const char *out = std::getenv("LAB_COVERAGE_OUT");
        if (out == nullptr) return;
        // The whole list each time any kernel ends (the host's own too, so that a run whose
        // kernels are all the host's says so with an empty list), the last one complete.
        if (FILE *f = std::fopen(out, "w")) {
            for (auto &p : places_) {
                std::fprintf(f, "access %u %u %s %s\n", std::get<1>(p.first),
                             std::get<2>(p.first), p.second ? "ran" : "never",
                             std::get<0>(p.first).empty() ? "-" : std::get<0>(p.first).c_str());
            }
            std::fprintf(f, "lanes %llu\nend\n", (unsigned long long)lanes_);
            std::fclose(f);
        }
    }

    // One thread: the table of watched instructions is not locked.
    bool isThreadSafe() const override { return false; }

  private:
    bool *place(const Place &at) { return &places_.emplace(at, false).first->second; }

    static std::string file_of(LLVMMetadataRef location) {
        LLVMMetadataRef scope = LLVMDILocationGetScope(location);
        LLVMMetadataRef file = scope ? LLVMDIScopeGetFile(scope) : nullptr;
        unsigned length = 0;
        const char *name = file ? LLVMDIFileGetFilename(file, &length) : nullptr;
        return name ? std::string(name, length) : std::string();
    }

    // A float multiplication or division of a vector type: its lanes less one, else 0.
    static unsigned lanes_past_the_first(LLVMValueRef instruction) {
        int opcode = LLVMGetInstructionOpcode(instruction);
        if (opcode != LLVM_FMUL && opcode != LLVM_FDIV) return 0;
        LLVMTypeRef type = LLVMTypeOf(instruction);
        if (LLVMGetTypeKind(type) != LLVM_VECTOR_TYPE) return 0;
        unsigned lanes = LLVMGetVectorSize(type);
        return lanes > 1 ? lanes - 1 : 0;
    }

    std::set<LLVMModuleRef> read_;
    // The vector multiplications and divisions of the programs read, and the lanes past the
    // first that ran.
    std::unordered_map<const llvm::Instruction *, unsigned> wide_;
    unsigned long long lanes_ = 0;
    std::map<Place, bool> places_;
    std::unordered_map<const llvm::Instruction *, std::vector<bool *>> watched_;
};

}  // namespace

oclgrind::Plugin *make_coverage(oclgrind::Context *context) { return new Coverage(context); }
