#pragma once
// A world's contents (its core state and the names beside it) to and from
// durable.Contents, and a world's limits to and from linkage.v1.WorldLimits:
// the parts of a checkpoint and of a LoadScene record.

#include "convert/names.hpp"
#include "durable/record.pb.h"
#include "linkage/linkage.hpp"

namespace linkage::server::durable {

// The world's state encoded (linkage::encode) and every name it has.
void contents_to_proto(const World& world, const Names& names, Contents* out);

struct WorldContents {
  World world;
  Names names;
};
// INVALID_ARGUMENT naming what is wrong for bytes the core refuses, or a
// name that is malformed, used twice or names nothing in the world.
Result<WorldContents> contents_from_proto(const Contents& contents);

}  // namespace linkage::server::durable
