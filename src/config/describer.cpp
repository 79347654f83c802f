#include "config/describer.h"

#include "base/error.h"

namespace simtlab::config {

namespace {

bool valid_name(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string Describer::child_path(std::string_view name) const {
  if (!valid_name(name))
    panic(__FILE__, __LINE__, fmt::format("config name '{}' must match [A-Za-z0-9_]+", name));
  if (prefix_.empty() && (name == "name" || name == "description" || name == "inherits"))
    panic(__FILE__, __LINE__, fmt::format("top-level config name '{}' is reserved", name));
  return prefix_.empty() ? std::string(name) : prefix_ + "." + std::string(name);
}

ParamDecl* SchemaBuilder::on_param(const std::string& path, FieldRef field, std::string_view unit,
                                   std::string_view description, std::string_view source) {
  ParamDecl d;
  d.path = path;
  d.kind = static_cast<Kind>(field.index());
  d.default_value = std::visit([](auto* p) { return to_value(*p); }, field);
  d.default_text = canonical_text(d.default_value);
  d.unit = unit;
  d.description = description;
  d.source = source;
  return &schema_.add_param(std::move(d));
}

ParamDecl* LookupLoader::on_param(const std::string& path, FieldRef field, std::string_view,
                                  std::string_view, std::string_view) {
  const Value& v = lookup_(path);
  std::visit(
      [&](auto* p) {
        using T = std::remove_pointer_t<decltype(p)>;
        if (to_value(T{}).index() != v.index())
          panic(__FILE__, __LINE__,
                fmt::format("config parameter '{}' does not have the kind of its field", path));
        *p = from_value<T>(v);
      },
      field);
  return nullptr;
}

void SchemaBuilder::on_group(const std::string& path, std::string_view description) {
  schema_.add_group(GroupDecl{path, std::string(description)});
}

}  // namespace simtlab::config
