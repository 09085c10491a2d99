// The course's bank counter: an Oclgrind plugin that counts how many passes ("wavefronts")
// a GPU's local memory would need to serve each warp's local accesses.
//
// A GPU's local memory is 32 banks of 4-byte words; a warp of 32 work-items gets every
// access of one instruction in one pass when no two of them touch different words of the
// same bank (the same word is broadcast). Oclgrind runs work-items one after another, so the
// warp's accesses are put back together here: the n-th execution of an instruction by each
// work-item of a warp (32 consecutive work-items of the group, in the order of their linear
// local id) is one warp access. Accesses wider than 4 bytes are served 128 bytes at a time
// (16 work-items of 8 bytes, 8 of 16 bytes), each part a pass at least.
//
// Made where LAB_BANKS_OUT is set (plugins.cpp); the counts go to the file it names (not to
// the kernel's stdout, which its printf could forge), for each kernel run a line of the whole
// and one per line of source and kind of access:
//     kernel NAME accesses N passes P ideal I
//     line L load|store passes P ideal I
// where I is the passes the same accesses would take without a conflict. The source line is
// read from the instruction's debug location through LLVM's C interface (the library
// Oclgrind itself is built on).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "plugin.h"

namespace {

using namespace oclgrind;

const unsigned LOCAL = 3;  // Oclgrind's AddrSpaceLocal
const size_t WARP = 32;
const size_t BANKS = 32;
const size_t WORD = 4;
const size_t PASS_BYTES = WORD * BANKS;

// One work-item's access: where in the group's local memory, how many bytes, which lane.
struct Access {
    bool store;
    size_t lane;
    size_t buffer;
    size_t offset;
    size_t size;
};

// A warp's n-th execution of one instruction.
typedef std::tuple<size_t, const llvm::Instruction *, size_t> WarpAccess;

// The passes one warp access takes, and the passes it would take without conflicts.
std::pair<size_t, size_t> passes(std::vector<Access> &lanes) {
    std::sort(lanes.begin(), lanes.end(),
              [](const Access &a, const Access &b) { return a.lane < b.lane; });
    size_t size = 0;
    for (const Access &a : lanes) size = std::max(size, a.size);
    // Work-items served together: as many as 128 bytes of the widest access hold.
    size_t per_pass = std::max<size_t>(1, PASS_BYTES / std::max<size_t>(size, 1));
    size_t taken = 0, ideal = 0;
    for (size_t first = 0; first < lanes.size();) {
        // The lanes of one part: those whose lane falls in the same block of per_pass.
        size_t block = lanes[first].lane % WARP / per_pass;
        size_t last = first;
        std::map<size_t, std::vector<std::pair<size_t, size_t>>> words;  // bank -> words
        while (last < lanes.size() && lanes[last].lane % WARP / per_pass == block) {
            const Access &a = lanes[last];
            for (size_t w = a.offset / WORD; w * WORD < a.offset + a.size; w++) {
                std::vector<std::pair<size_t, size_t>> &in = words[w % BANKS];
                std::pair<size_t, size_t> word(a.buffer, w);
                if (std::find(in.begin(), in.end(), word) == in.end()) in.push_back(word);
            }
            last++;
        }
        size_t most = 1;
        for (auto &bank : words) most = std::max(most, bank.second.size());
        taken += most;
        ideal += 1;
        first = last;
    }
    return std::make_pair(taken, ideal);
}

class Banks : public Plugin {
  public:
    explicit Banks(const Context *context) : Plugin(context) {}

    void kernelBegin(const KernelInvocation *invocation) override {
        std::lock_guard<std::mutex> lock(mutex_);
        name_ = invocation->getKernel()->getName();
        accesses_ = taken_ = ideal_ = 0;
        pending_.clear();
        lines_.clear();
        line_of_.clear();
    }

    void kernelEnd(const KernelInvocation *) override {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto &group : pending_) flush(group.second);
        pending_.clear();
        const char *out = std::getenv("LAB_BANKS_OUT");
        if (out == nullptr) return;
        if (FILE *f = std::fopen(out, "a")) {
            std::fprintf(f, "kernel %s accesses %zu passes %zu ideal %zu\n", name_.c_str(),
                         accesses_, taken_, ideal_);
            for (auto &l : lines_) {
                std::fprintf(f, "line %u %s passes %zu ideal %zu\n", l.first.first,
                             l.first.second ? "store" : "load", l.second.first, l.second.second);
            }
            std::fclose(f);
        }
    }

    void memoryLoad(const Memory *memory, const WorkItem *item, size_t address,
                    size_t size) override {
        note(false, memory, item, address, size);
    }

    void memoryStore(const Memory *memory, const WorkItem *item, size_t address,
                     size_t size, const uint8_t *) override {
        note(true, memory, item, address, size);
    }

    // Every work-item of the group has reached the barrier: its accesses before it are all in.
    void workGroupBarrier(const WorkGroup *group, uint32_t) override {
        std::lock_guard<std::mutex> lock(mutex_);
        auto found = pending_.find(group->getGroupIndex());
        if (found != pending_.end()) {
            flush(found->second);
            pending_.erase(found);
        }
    }

    void workGroupComplete(const WorkGroup *group) override { workGroupBarrier(group, 0); }

    bool isThreadSafe() const override { return false; }

  private:
    struct Group {
        std::map<WarpAccess, std::vector<Access>> warps;
        // How often each work-item has run each instruction since the last barrier.
        std::map<std::pair<size_t, const llvm::Instruction *>, size_t> runs;
    };

    void note(bool store, const Memory *memory, const WorkItem *item, size_t address,
              size_t size) {
        if (memory->getAddressSpace() != LOCAL) return;
        const WorkGroup *group = item->getWorkGroup();
        Size3 id = item->getLocalID();
        Size3 dims = group->getGroupSize();
        size_t lane = id.x + dims.x * (id.y + dims.y * id.z);
        const llvm::Instruction *at = item->getCurrentInstruction();
        std::lock_guard<std::mutex> lock(mutex_);
        Group &g = pending_[group->getGroupIndex()];
        size_t n = g.runs[std::make_pair(item->getGlobalIndex(), at)]++;
        g.warps[WarpAccess(lane / WARP, at, n)].push_back(
            Access{store, lane, memory->extractBuffer(address), memory->extractOffset(address),
                   size});
        accesses_++;
    }

    void flush(Group &g) {
        for (auto &warp : g.warps) {
            const llvm::Instruction *at = std::get<1>(warp.first);
            bool store = warp.second.front().store;
            std::pair<size_t, size_t> p = passes(warp.second);
            taken_ += p.first;
            ideal_ += p.second;
            auto known = line_of_.find(at);
            if (known == line_of_.end()) {
                known = line_of_.emplace(at, LLVMGetDebugLocLine(at)).first;
            }
            std::pair<size_t, size_t> &l = lines_[std::make_pair(known->second, store)];
            l.first += p.first;
            l.second += p.second;
        }
        g.warps.clear();
        g.runs.clear();
    }

    std::mutex mutex_;
    std::string name_;
    size_t accesses_ = 0, taken_ = 0, ideal_ = 0;
    std::map<size_t, Group> pending_;
    // Passes and conflict-free passes by source line and kind (store or not).
    std::map<std::pair<unsigned, bool>, std::pair<size_t, size_t>> lines_;
    std::map<const llvm::Instruction *, unsigned> line_of_;
};

}  // namespace

oclgrind::Plugin *make_banks(oclgrind::Context *context) { return new Banks(context); }
