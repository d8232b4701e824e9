#include "convert/field_mask.hpp"

#include <google/protobuf/util/field_mask_util.h>

#include <string>

namespace linkage::server {

Status merge_masked(const google::protobuf::Message& given, const google::protobuf::FieldMask& mask,
                    google::protobuf::Message* current, std::string_view field) {
  using google::protobuf::util::FieldMaskUtil;
  const google::protobuf::Descriptor* type = current->GetDescriptor();
  for (int i = 0; i < mask.paths_size(); ++i) {
    const std::string& path = mask.paths(i);
    if (path.empty() || !FieldMaskUtil::GetFieldDescriptors(type, path, nullptr))
      return Error{ErrorCode::invalid_argument, std::string(field) + ".paths[" + std::to_string(i) + "]: " +
                                                    type->name() + " has no field '" + path +
                                                    "' (paths use the proto's field names, dots between levels)"};
  }
  FieldMaskUtil::MergeOptions options;
  options.set_replace_message_fields(true);
  options.set_replace_repeated_fields(true);
  FieldMaskUtil::MergeMessageTo(given, mask, options, current);
  return ok_status();
}

}  // namespace linkage::server
