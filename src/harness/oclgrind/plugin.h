// The part of Oclgrind 21.10's plugin interface the course's plugins use (`oclgrind/Plugin.h`
// and the classes it names), declared here so that no development package is needed: the
// virtual functions must stay in the order Plugin.h declares them, since Oclgrind calls them
// by their place in the table. The other functions are Oclgrind's and LLVM's own, found in
// the libraries Oclgrind loads (LLVM's C interface reads the program's instructions).

#ifndef LAB_OCLGRIND_PLUGIN_H
#define LAB_OCLGRIND_PLUGIN_H

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>

namespace llvm {
class Function;
class Instruction;
class Value;
}

// LLVM's C interface (llvm-c/Core.h, DebugInfo.h), with the values of its enumerations the
// plugins compare against.
typedef struct LLVMOpaqueValue *LLVMValueRef;
typedef struct LLVMOpaqueBasicBlock *LLVMBasicBlockRef;
typedef struct LLVMOpaqueModule *LLVMModuleRef;
typedef struct LLVMOpaqueType *LLVMTypeRef;
typedef struct LLVMOpaqueMetadata *LLVMMetadataRef;
extern "C" {
unsigned LLVMGetDebugLocLine(const llvm::Instruction *instruction);
const char *LLVMGetDebugLocFilename(LLVMValueRef value, unsigned *length);
LLVMModuleRef LLVMGetGlobalParent(LLVMValueRef global);
LLVMValueRef LLVMGetFirstFunction(LLVMModuleRef module);
LLVMValueRef LLVMGetNextFunction(LLVMValueRef function);
LLVMBasicBlockRef LLVMGetFirstBasicBlock(LLVMValueRef function);
LLVMBasicBlockRef LLVMGetNextBasicBlock(LLVMBasicBlockRef block);
LLVMValueRef LLVMGetFirstInstruction(LLVMBasicBlockRef block);
LLVMValueRef LLVMGetNextInstruction(LLVMValueRef instruction);
int LLVMGetInstructionOpcode(LLVMValueRef instruction);
int LLVMGetICmpPredicate(LLVMValueRef instruction);
int LLVMIsNull(LLVMValueRef value);
int LLVMGetNumOperands(LLVMValueRef value);
LLVMValueRef LLVMGetOperand(LLVMValueRef value, unsigned index);
LLVMValueRef LLVMIsAConstantExpr(LLVMValueRef value);
int LLVMGetConstOpcode(LLVMValueRef value);
LLVMTypeRef LLVMTypeOf(LLVMValueRef value);
int LLVMGetTypeKind(LLVMTypeRef type);
unsigned LLVMGetVectorSize(LLVMTypeRef vector);
unsigned LLVMGetPointerAddressSpace(LLVMTypeRef type);
LLVMValueRef LLVMGetCalledValue(LLVMValueRef call);
LLVMTypeRef LLVMGetElementType(LLVMTypeRef type);
const char *LLVMGetValueName2(LLVMValueRef value, size_t *length);
unsigned LLVMGetNumArgOperands(LLVMValueRef call);
LLVMValueRef LLVMIsAFunction(LLVMValueRef value);
int LLVMIsDeclaration(LLVMValueRef global);
LLVMMetadataRef LLVMInstructionGetDebugLoc(LLVMValueRef instruction);
LLVMMetadataRef LLVMDILocationGetInlinedAt(LLVMMetadataRef location);
unsigned LLVMDILocationGetLine(LLVMMetadataRef location);
unsigned LLVMDILocationGetColumn(LLVMMetadataRef location);
LLVMMetadataRef LLVMDILocationGetScope(LLVMMetadataRef location);
LLVMMetadataRef LLVMDIScopeGetFile(LLVMMetadataRef scope);
const char *LLVMDIFileGetFilename(LLVMMetadataRef file, unsigned *length);
}
const int LLVM_FMUL = 13;          // LLVMFMul
const int LLVM_FDIV = 16;          // LLVMFDiv
const int LLVM_LOAD = 27;          // LLVMLoad
const int LLVM_STORE = 28;         // LLVMStore
const int LLVM_GEP = 29;           // LLVMGetElementPtr
const int LLVM_PTR_TO_INT = 39;    // LLVMPtrToInt
const int LLVM_INT_TO_PTR = 40;    // LLVMIntToPtr
const int LLVM_ICMP = 42;          // LLVMICmp
const int LLVM_CALL = 45;          // LLVMCall
const int LLVM_INT_EQ = 32;        // LLVMIntEQ (LLVMIntNE is 33, the orderings 34 to 41)
const int LLVM_INT_NE = 33;
const int LLVM_HALF_TYPE = 1;      // LLVMHalfTypeKind (then float, double, the wide floats)
const int LLVM_PPC_FP128_TYPE = 6; // LLVMPPC_FP128TypeKind, the last float kind
const int LLVM_INTEGER_TYPE = 8;   // LLVMIntegerTypeKind
const int LLVM_ARRAY_TYPE = 11;    // LLVMArrayTypeKind
const int LLVM_POINTER_TYPE = 12;  // LLVMPointerTypeKind
const int LLVM_VECTOR_TYPE = 13;   // LLVMVectorTypeKind

namespace oclgrind {
class Context;
class Kernel;
class KernelInvocation;
class WorkGroup;
class WorkItem;
// A value as a work-item holds it (`common.h`): `num` elements of `size` bytes at `data`.
// Returned in registers by WorkItem::getOperand, so the layout must stay Oclgrind's.
struct TypedValue {
    unsigned size;
    unsigned num;
    unsigned char *data;
};
enum AtomicOp : int {};
enum MessageType : int {};
typedef uint64_t cl_bitfield;

struct Size3 {
    size_t x, y, z;
};

class Memory {
  public:
    unsigned int getAddressSpace() const;
    size_t extractBuffer(size_t address) const;
    size_t extractOffset(size_t address) const;
};

class WorkItem {
  public:
    const llvm::Instruction *getCurrentInstruction() const;
    size_t getGlobalIndex() const;
    TypedValue getOperand(const llvm::Value *operand) const;
    Size3 getLocalID() const;
    const WorkGroup *getWorkGroup() const;
};

class WorkGroup {
  public:
    size_t getGroupIndex() const;
    Size3 getGroupSize() const;
};

class Kernel {
  public:
    const std::string &getName() const;
    const llvm::Function *getFunction() const;
};

class KernelInvocation {
  public:
    const Kernel *getKernel() const;
};

class Context {
  public:
    void registerPlugin(class Plugin *plugin);
    void unregisterPlugin(class Plugin *plugin);
};

class Plugin {
  public:
    Plugin(const Context *context);
    virtual ~Plugin();
    virtual void hostMemoryLoad(const Memory *, size_t, size_t) {}
    virtual void hostMemoryStore(const Memory *, size_t, size_t, const uint8_t *) {}
    virtual void instructionExecuted(const WorkItem *, const llvm::Instruction *,
                                     const TypedValue &) {}
    virtual void kernelBegin(const KernelInvocation *) {}
    virtual void kernelEnd(const KernelInvocation *) {}
    virtual void log(MessageType, const char *) {}
    virtual void memoryAllocated(const Memory *, size_t, size_t, cl_bitfield,
                                 const uint8_t *) {}
    virtual void memoryAtomicLoad(const Memory *, const WorkItem *, AtomicOp, size_t,
                                  size_t) {}
    virtual void memoryAtomicStore(const Memory *, const WorkItem *, AtomicOp, size_t,
                                   size_t) {}
    virtual void memoryDeallocated(const Memory *, size_t) {}
    virtual void memoryLoad(const Memory *, const WorkItem *, size_t, size_t) {}
    virtual void memoryLoad(const Memory *, const WorkGroup *, size_t, size_t) {}
    virtual void memoryMap(const Memory *, size_t, size_t, size_t, cl_bitfield) {}
    virtual void memoryStore(const Memory *, const WorkItem *, size_t, size_t,
                             const uint8_t *) {}
    virtual void memoryStore(const Memory *, const WorkGroup *, size_t, size_t,
                             const uint8_t *) {}
    virtual void memoryUnmap(const Memory *, size_t, const void *) {}
    virtual void workGroupBarrier(const WorkGroup *, uint32_t) {}
    virtual void workGroupBegin(const WorkGroup *) {}
    virtual void workGroupComplete(const WorkGroup *) {}
    virtual void workItemBegin(const WorkItem *) {}
    virtual void workItemComplete(const WorkItem *) {}
    virtual bool isThreadSafe() const;

  protected:
    const Context *m_context;
};
}  // namespace oclgrind

namespace lab {
// An instruction's place in the source: its file as the compiler names it, and its line.
typedef std::pair<std::string, unsigned> Place;
Place place_of(LLVMValueRef instruction);
// Appends `WHAT FILE LINE` for each place to the file `out` names and ends the run (status
// 86): the kernel is refused whatever it would do next (addresses.cpp).
[[noreturn]] void stop_at(const char *out, const char *what, const std::set<Place> &places);
}  // namespace lab

// Each plugin of the course, made where its output variable is set (plugins.cpp).
oclgrind::Plugin *make_banks(oclgrind::Context *context);
oclgrind::Plugin *make_addresses(oclgrind::Context *context);
oclgrind::Plugin *make_coverage(oclgrind::Context *context);
oclgrind::Plugin *make_leftovers(oclgrind::Context *context);

#endif
