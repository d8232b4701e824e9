#pragma once
// The whole public API of linkage's core.
#include "linkage/body.hpp"
#include "linkage/constraints.hpp"
#include "linkage/diagnostics.hpp"
#include "linkage/force.hpp"
#include "linkage/ids.hpp"
#include "linkage/result.hpp"
#include "linkage/settings.hpp"
#include "linkage/snapshot.hpp"
#include "linkage/world.hpp"
