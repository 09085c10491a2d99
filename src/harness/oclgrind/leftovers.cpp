// The leftovers watch: an Oclgrind plugin that finds where a kernel reads what a buffer it
// writes held before the kernel ran. The only buffer a multiplication writes is C, and what
// C holds when the kernel starts is not an input: the grader fills it with poison that
// changes from run to run. A kernel that reads it anyway can learn what no multiplication
// needs: whether it ran before (and skip the work), or how many work-groups came before it
// (work-groups that take tickets by atomics on an element of C), which the simulator,
// running a few work-groups of a large launch, answers otherwise than the device. An input
// buffer written into (a cast that drops A's `const`) is caught the same way: its reads came
// before the write.
//
// So, in each kernel run, the bytes of global memory written by the kernel are followed,
// buffer by buffer. A read (a load, an atomic, a copy into local memory) of bytes of a
// buffer that the run has not written yet is remembered; if the run ever writes into that
// buffer, the read's place goes, once, as
//     unwritten FILE LINE
// to the file named in LAB_ADDRESSES_OUT (the address reader's: both name what a kernel reads
// that is not its input), and the run stops there. A and B are read and never written;
// C is written, then read where it was written (`C[i] = 0; C[i] += ...`): both are left alone.

#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "plugin.h"

namespace {

using namespace oclgrind;

const unsigned GLOBAL = 1;  // LLVM's global address space as Oclgrind numbers it

class Leftovers : public Plugin {
  public:
    explicit Leftovers(const Context *context) : Plugin(context) {}

    void kernelBegin(const KernelInvocation *) override {
        std::lock_guard<std::mutex> lock(mutex_);
        written_.clear();
        unwritten_.clear();
    }

    void memoryLoad(const Memory *memory, const WorkItem *item, size_t address,
                    size_t size) override {
        read(memory, item, address, size);
    }

    void memoryLoad(const Memory *memory, const WorkGroup *, size_t address,
                    size_t size) override {
        read(memory, nullptr, address, size);
    }

    void memoryAtomicLoad(const Memory *memory, const WorkItem *item, AtomicOp, size_t address,
                          size_t size) override {
        read(memory, item, address, size);
    }

    void memoryStore(const Memory *memory, const WorkItem *, size_t address, size_t size,
                     const uint8_t *) override {
        write(memory, address, size);
    }

    void memoryStore(const Memory *memory, const WorkGroup *, size_t address, size_t size,
                     const uint8_t *) override {
        write(memory, address, size);
    }

    void memoryAtomicStore(const Memory *memory, const WorkItem *, AtomicOp, size_t address,
                           size_t size) override {
        write(memory, address, size);
    }

    bool isThreadSafe() const override { return true; }

  private:
    // The bytes of one buffer written in this run, as start to end, kept merged.
    typedef std::map<uint64_t, uint64_t> Spans;

    static bool covered(const Spans &spans, uint64_t from, uint64_t to) {
        auto after = spans.upper_bound(from);
        return after != spans.begin() && std::prev(after)->second >= to;
    }

    static void add(Spans &spans, uint64_t from, uint64_t to) {
        auto s = spans.upper_bound(from);
        if (s != spans.begin() && std::prev(s)->second >= from) {
            --s;
            from = s->first;
            if (s->second > to) to = s->second;
            s = spans.erase(s);
        }
        while (s != spans.end() && s->first <= to) {
            if (s->second > to) to = s->second;
            s = spans.erase(s);
        }
        spans[from] = to;
    }

    void read(const Memory *memory, const WorkItem *item, size_t address, size_t size) {
        if (memory->getAddressSpace() != GLOBAL) return;
        std::lock_guard<std::mutex> lock(mutex_);
        size_t buffer = memory->extractBuffer(address);
        auto spans = written_.find(buffer);
        if (spans != written_.end() && covered(spans->second, address, address + size)) return;
        // A copy into local memory (`async_work_group_copy`) is made by the work-group, not
        // by an instruction of one work-item: it has no place of its own.
        lab::Place at = item != nullptr && item->getCurrentInstruction() != nullptr
                            ? lab::place_of((LLVMValueRef)item->getCurrentInstruction())
                            : lab::Place(std::string(), 0);
        if (spans != written_.end()) stop(at);
        unwritten_.emplace(buffer, at);
    }

    void write(const Memory *memory, size_t address, size_t size) {
        if (memory->getAddressSpace() != GLOBAL) return;
        std::lock_guard<std::mutex> lock(mutex_);
        size_t buffer = memory->extractBuffer(address);
        auto early = unwritten_.find(buffer);
        if (early != unwritten_.end()) stop(early->second);
        add(written_[buffer], address, address + size);
    }

    void stop(const lab::Place &at) {
        const char *out = std::getenv("LAB_ADDRESSES_OUT");
        if (out != nullptr) lab::stop_at(out, "unwritten", {at});
    }

    std::mutex mutex_;
    std::map<size_t, Spans> written_;
    // The first read of each buffer's unwritten bytes, while no byte of it is written.
    std::map<size_t, lab::Place> unwritten_;
};

}  // namespace

oclgrind::Plugin *make_leftovers(oclgrind::Context *context) { return new Leftovers(context); }
