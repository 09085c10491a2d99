// The course's Oclgrind plugins, in one library: Oclgrind loads the library named in
// OCLGRIND_PLUGINS and calls initializePlugins, which makes each plugin whose output file is
// named (LAB_BANKS_OUT: the bank counter, banks.cpp; LAB_ADDRESSES_OUT: the address reader,
// addresses.cpp, and the leftovers watch, leftovers.cpp; LAB_COVERAGE_OUT: the coverage of
// global accesses and the lanes of vector multiplications, coverage.cpp). The bank counter follows every local access and the
// coverage every executed instruction, and each makes Oclgrind run one thread; the address
// reader reads the program once per kernel.

#include <cstdlib>
#include <vector>

#include "plugin.h"

namespace {
std::vector<oclgrind::Plugin *> plugins;
}

extern "C" void initializePlugins(oclgrind::Context *context) {
    if (std::getenv("LAB_BANKS_OUT") != nullptr) plugins.push_back(make_banks(context));
    if (std::getenv("LAB_ADDRESSES_OUT") != nullptr) {
        plugins.push_back(make_addresses(context));
        plugins.push_back(make_leftovers(context));
    }
    if (std::getenv("LAB_COVERAGE_OUT") != nullptr) plugins.push_back(make_coverage(context));
    for (oclgrind::Plugin *p : plugins) context->registerPlugin(p);
}

extern "C" void releasePlugins(oclgrind::Context *context) {
    for (oclgrind::Plugin *p : plugins) {
        context->unregisterPlugin(p);
        delete p;
    }
    plugins.clear();
}
