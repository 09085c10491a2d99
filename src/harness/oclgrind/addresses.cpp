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
// constants: `(ulong)A`, or `A == (__global float *)0x1000000000000`), two addresses compared
// inside a constant (which only the placement answers), and a pointer stored
// into global or local memory (from where it could be read back as a number). Each place
// found goes, once, as
//     pointer FILE LINE
// to the file named in LAB_ADDRESSES_OUT (not to the kernel's stdout, which its printf could
// forge), and the run stops there: the kernel is refused whatever it would do next, and one
// that would loop under the simulator costs no watchdog's wait.
//
// A pointer's value can also be learned without converting it, from arithmetic and
// comparisons that C leaves undefined across objects: `A + (1L << 48) == B` holds only where
// buffers lie 2^48 apart, `A + (1 << 30) < B` only where they lie far apart. So, as the kernel
// runs, a pointer moved by arithmetic (a getelementptr, as an instruction or inside a
// constant) nearer to another buffer's start than to its own, two pointers of different
// buffers compared in order (`<`, `>=`), and a pointer off its buffer's start compared for
// equality with another buffer's (`Asub + TS * TS == Bsub`: equal only where the runtime put
// one right after the other) stop the run the same way. Two buffers' starts compared for
// equality (`A == B`), or a pointer compared with null, are left alone: their answer is the
// same on every device. No kernel that computes offsets from indices moves a pointer 2^47
// bytes.

#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// The simulator's address of a buffer's start nearest to a pointer: Oclgrind keeps the
// buffer's number in the top 16 bits of an address, its offset in the other 48.
const uint64_t BUFFER = uint64_t(1) << 48;
uint64_t home(uint64_t pointer) { return (pointer + BUFFER / 2) & ~(BUFFER - 1); }

// A scalar pointer's value, or false where the value is not one (a vector of pointers).
bool pointer_value(const TypedValue &value, uint64_t *out) {
    if (value.size != sizeof(uint64_t) || value.num != 1 || value.data == nullptr) return false;
    std::memcpy(out, value.data, sizeof(uint64_t));
    return true;
}

// Whether an instruction reads a pointer's value: converts one to an integer or an integer
// to one, or stores one into memory that other code could read as a number.
bool reads_a_pointer(LLVMValueRef instruction) {
    int opcode = LLVMGetInstructionOpcode(instruction);
    if (converts(opcode)) return true;
    int operands = LLVMGetNumOperands(instruction);
    for (int i = 0; i < operands; i++) {
        LLVMValueRef op = LLVMGetOperand(instruction, i);
        if (op == nullptr || LLVMIsAConstantExpr(op) == nullptr) continue;
        int constant = LLVMGetConstOpcode(op);
        // A comparison of two constant addresses (`&Asub[TS - 1][TS] != &Bsub[0][0]`, folded
        // into a constant), which only the runtime's placement answers.
        if (converts(constant) || (constant == LLVM_ICMP && is_pointer(LLVMGetOperand(op, 0)))) {
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

// An instruction's place in the source: its file as the compiler names it and its line.
typedef std::pair<std::string, unsigned> Place;
Place place_of(LLVMValueRef instruction) {
    unsigned length = 0;
    const char *file = LLVMGetDebugLocFilename(instruction, &length);
    return Place(file ? std::string(file, length) : std::string(),
                 LLVMGetDebugLocLine((const llvm::Instruction *)instruction));
}

// Writes each place to the file `out` names and ends the run: the kernel is refused whatever
// it would do next.
[[noreturn]] void stop_at(const char *out, const std::set<Place> &places) {
    if (FILE *f = std::fopen(out, "a")) {
        for (auto &at : places) {
            std::fprintf(f, "pointer %s %u\n", at.first.empty() ? "-" : at.first.c_str(),
                         at.second);
        }
        std::fclose(f);
    }
    std::fflush(nullptr);
    std::_Exit(STOPPED);
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
        std::set<Place> found;
        for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = LLVMGetNextFunction(f)) {
            for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
                for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
                    if (reads_a_pointer(i)) found.insert(place_of(i));
                }
            }
        }
        if (!found.empty()) stop_at(out, found);
    }

    void instructionExecuted(const WorkItem *item, const llvm::Instruction *instruction,
                             const TypedValue &result) override {
        LLVMValueRef i = (LLVMValueRef)instruction;
        int opcode = LLVMGetInstructionOpcode(i);
        if (opcode == LLVM_GEP) {
            uint64_t from = 0, to = 0;
            if (pointer_value(item->getOperand((const llvm::Value *)LLVMGetOperand(i, 0)), &from) &&
                pointer_value(result, &to) && home(from) != home(to)) {
                stop(i);
            }
            return;
        }
        if (opcode != LLVM_ICMP || !is_pointer(LLVMGetOperand(i, 0))) return;
        uint64_t value[2] = {0, 0};
        for (unsigned k = 0; k < 2; k++) {
            LLVMValueRef op = LLVMGetOperand(i, k);
            if (!pointer_value(item->getOperand((const llvm::Value *)op), &value[k])) return;
            // A constant's own arithmetic (`Asub + (1L << 48)` folded into the comparison).
            if (LLVMIsAConstantExpr(op) != nullptr && LLVMGetConstOpcode(op) == LLVM_GEP) {
                uint64_t base = 0;
                LLVMValueRef of = LLVMGetOperand(op, 0);
                if (pointer_value(item->getOperand((const llvm::Value *)of), &base) &&
                    home(base) != home(value[k])) {
                    stop(i);
                }
            }
        }
        if (home(value[0]) == home(value[1])) return;
        int predicate = LLVMGetICmpPredicate(i);
        bool ordered = predicate != LLVM_INT_EQ && predicate != LLVM_INT_NE;
        // Equal only where the runtime put one object right after the other: a pointer moved
        // off its object's start compared with another object's (`Asub + TS * TS == Bsub`).
        bool moved = value[0] != home(value[0]) || value[1] != home(value[1]);
        bool null = LLVMIsNull(LLVMGetOperand(i, 0)) || LLVMIsNull(LLVMGetOperand(i, 1));
        if (ordered || (moved && !null)) stop(i);
    }

    bool isThreadSafe() const override { return true; }

  private:
    // Writes the place of `instruction` and ends the run, as the reading pass does.
    void stop(LLVMValueRef instruction) {
        const char *out = std::getenv("LAB_ADDRESSES_OUT");
        if (out == nullptr) return;
        std::lock_guard<std::mutex> lock(mutex_);
        stop_at(out, {place_of(instruction)});
    }

    std::mutex mutex_;
    std::set<LLVMModuleRef> read_;
};

}  // namespace

oclgrind::Plugin *make_addresses(oclgrind::Context *context) { return new Addresses(context); }
