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
//
// A pointer stored into private memory (a `volatile` union of a pointer and bytes) can be
// read back as a number without any conversion. So a private slot that holds a pointer to
// global, constant or local memory may be read back only as a pointer: a load of a number from it stops the run the same way (a
// copy of the slot, by `memcpy`, carries the pointer along; a number stored over it ends it).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "plugin.h"

namespace {

using namespace oclgrind;
using lab::Place;
using lab::place_of;

const unsigned PRIVATE = 0, GLOBAL = 1, LOCAL = 3;  // LLVM's address spaces, Oclgrind's numbers

bool is_pointer(LLVMValueRef value) {
    return LLVMGetTypeKind(LLVMTypeOf(value)) == LLVM_POINTER_TYPE;
}

// Whether a value of this type is a number, or numbers (an integer or a float, or a vector or
// an array of them), rather than a pointer or something holding one.
bool is_number(LLVMTypeRef type) {
    int kind = LLVMGetTypeKind(type);
    if (kind == LLVM_VECTOR_TYPE || kind == LLVM_ARRAY_TYPE) return is_number(LLVMGetElementType(type));
    return kind == LLVM_INTEGER_TYPE || (kind >= LLVM_HALF_TYPE && kind <= LLVM_PPC_FP128_TYPE);
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
        if (!found.empty()) lab::stop_at(out, "pointer", found);
    }

    void instructionExecuted(const WorkItem *item, const llvm::Instruction *instruction,
                             const TypedValue &result) override {
        LLVMValueRef i = (LLVMValueRef)instruction;
        int opcode = LLVMGetInstructionOpcode(i);
        if (opcode == LLVM_STORE || opcode == LLVM_LOAD || opcode == LLVM_CALL) {
            watch_slots(item, i, opcode, result);
            return;
        }
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

    void workItemComplete(const WorkItem *item) override { held().erase(item); }

    bool isThreadSafe() const override { return true; }

  private:
    // The private slots that hold a pointer, as start to end, per work-item. A work-group's
    // work-items all run on one of Oclgrind's threads, so each thread keeps its own.
    typedef std::map<uint64_t, uint64_t> Slots;
    static std::map<const WorkItem *, Slots> &held() {
        static thread_local std::map<const WorkItem *, Slots> slots;
        return slots;
    }

    static bool overlaps(const Slots &slots, uint64_t from, uint64_t to) {
        auto after = slots.lower_bound(to);
        return after != slots.begin() && std::prev(after)->second > from;
    }

    static void forget(Slots &slots, uint64_t from, uint64_t to) {
        for (auto s = slots.begin(); s != slots.end();) {
            s = (s->first < to && s->second > from) ? slots.erase(s) : std::next(s);
        }
    }

    // The private address `pointer` holds, where it is a private pointer.
    static bool private_address(const WorkItem *item, LLVMValueRef pointer, uint64_t *at) {
        return is_pointer(pointer) && LLVMGetPointerAddressSpace(LLVMTypeOf(pointer)) == PRIVATE &&
               pointer_value(item->getOperand((const llvm::Value *)pointer), at);
    }

    // Follows the private slots that hold a pointer: a pointer stored makes one, a number
    // stored over it ends it, `memcpy` carries it along; a number loaded from one, a copy of
    // one out of private memory, or one passed to the runtime's own functions (`vload8` of
    // its bytes) stops the run.
    void watch_slots(const WorkItem *item, LLVMValueRef i, int opcode, const TypedValue &result) {
        auto &all = held();
        uint64_t at = 0;
        if (opcode == LLVM_STORE) {
            LLVMValueRef value = LLVMGetOperand(i, 0);
            if (!private_address(item, LLVMGetOperand(i, 1), &at)) return;
            TypedValue stored = item->getOperand((const llvm::Value *)value);
            uint64_t end = at + uint64_t(stored.size) * stored.num;
            // A pointer to memory: a private one (an `event_t` is one) says nothing of where
            // the runtime put a buffer.
            if (is_pointer(value) && LLVMGetPointerAddressSpace(LLVMTypeOf(value)) != PRIVATE) {
                Slots &slots = all[item];
                forget(slots, at, end);
                slots[at] = end;
            } else if (all.count(item) != 0) {
                forget(all[item], at, end);
            }
            return;
        }
        auto found = all.find(item);
        if (found == all.end() || found->second.empty()) return;
        Slots &slots = found->second;
        if (opcode == LLVM_LOAD) {
            if (is_number(LLVMTypeOf(i)) && private_address(item, LLVMGetOperand(i, 0), &at) &&
                overlaps(slots, at, at + uint64_t(result.size) * result.num)) {
                stop(i);
            }
            return;
        }
        LLVMValueRef callee = LLVMGetCalledValue(i);
        if (callee == nullptr || LLVMIsAFunction(callee) == nullptr) return;
        size_t length = 0;
        const char *name = LLVMGetValueName2(callee, &length);
        std::string called(name ? name : "", name ? length : 0);
        bool copies = called.rfind("llvm.memcpy", 0) == 0 || called.rfind("llvm.memmove", 0) == 0;
        bool sets = called.rfind("llvm.memset", 0) == 0;
        if (called.rfind("llvm.", 0) == 0 && !copies && !sets) return;  // lifetimes, debug info
        if (!copies && !sets && LLVMIsDeclaration(callee) == 0) return;  // the program's own
        uint64_t to = 0, from = 0, bytes = 0;
        if (copies || sets) {
            TypedValue size = item->getOperand((const llvm::Value *)LLVMGetOperand(i, 2));
            if (size.data == nullptr || size.size > sizeof(bytes)) return;
            std::memcpy(&bytes, size.data, size.size);
        }
        if (sets) {
            if (private_address(item, LLVMGetOperand(i, 0), &to)) forget(slots, to, to + bytes);
            return;
        }
        if (copies) {
            if (!private_address(item, LLVMGetOperand(i, 1), &from) ||
                !overlaps(slots, from, from + bytes)) {
                if (private_address(item, LLVMGetOperand(i, 0), &to)) forget(slots, to, to + bytes);
                return;
            }
            if (!private_address(item, LLVMGetOperand(i, 0), &to)) stop(i);
            Slots moved;
            for (auto &s : slots) {
                if (s.first >= from && s.second <= from + bytes) {
                    moved[s.first - from + to] = s.second - from + to;
                }
            }
            forget(slots, to, to + bytes);
            slots.insert(moved.begin(), moved.end());
            return;
        }
        // One of the runtime's functions given a pointer into a slot reads or writes it as
        // numbers.
        for (unsigned k = 0, n = LLVMGetNumArgOperands(i); k < n; k++) {
            if (private_address(item, LLVMGetOperand(i, k), &at) && overlaps(slots, at, at + 1)) {
                stop(i);
            }
        }
    }

    // Writes the place of `instruction` and ends the run, as the reading pass does.
    void stop(LLVMValueRef instruction) {
        const char *out = std::getenv("LAB_ADDRESSES_OUT");
        if (out == nullptr) return;
        std::lock_guard<std::mutex> lock(mutex_);
        lab::stop_at(out, "pointer", {place_of(instruction)});
    }

    std::mutex mutex_;
    std::set<LLVMModuleRef> read_;
};

}  // namespace

namespace lab {

const int STOPPED = 86;  // the exit status of a run stopped by a plugin

Place place_of(LLVMValueRef instruction) {
    unsigned length = 0;
    const char *file = LLVMGetDebugLocFilename(instruction, &length);
    return Place(file ? std::string(file, length) : std::string(),
                 LLVMGetDebugLocLine((const llvm::Instruction *)instruction));
}

void stop_at(const char *out, const char *what, const std::set<Place> &places) {
    if (FILE *f = std::fopen(out, "a")) {
        for (auto &at : places) {
            std::fprintf(f, "%s %s %u\n", what, at.first.empty() ? "-" : at.first.c_str(),
                         at.second);
        }
        std::fclose(f);
    }
    std::fflush(nullptr);
    std::_Exit(STOPPED);
}

}  // namespace lab

oclgrind::Plugin *make_addresses(oclgrind::Context *context) { return new Addresses(context); }
