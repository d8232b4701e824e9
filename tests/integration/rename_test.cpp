// UpdateBody may rename the body it names: the answer describes the body
// under its new name (the request's old name no longer resolves).
#include <gtest/gtest.h>

#include "support.hpp"

namespace linkage::itest {
namespace {

TEST(UpdateBody, RenamesTheBodyItNamesByItsOldName) {
  InProcessServer server;
  Client a(server.target());
  v1::CreateBodyRequest create;
  create.set_world("default");
  *create.mutable_body() = particle("p2", 1, 0);
  v1::CreateBodyResponse made;
  ASSERT_TRUE(a.bodies->CreateBody(context().get(), create, &made).ok());

  v1::UpdateBodyRequest update;
  update.set_world("default");
  update.mutable_body()->set_name("p2");
  *update.mutable_def() = particle("p2b", 1, 0);
  v1::UpdateBodyResponse updated;
  const grpc::Status st = a.bodies->UpdateBody(context().get(), update, &updated);
  ASSERT_TRUE(st.ok()) << status_text(st);
  EXPECT_EQ(updated.body().def().name(), "p2b");
  EXPECT_EQ(key(updated.body().id()), key(made.id()));

  v1::GetBodyRequest old_name;
  old_name.set_world("default");
  old_name.mutable_body()->set_name("p2");
  v1::GetBodyResponse got;
  EXPECT_EQ(a.bodies->GetBody(context().get(), old_name, &got).error_code(), grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace linkage::itest
