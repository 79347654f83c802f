#include "config/reference.h"

#include <fmt/format.h>

namespace simtlab::config {

namespace {

std::string parent_of(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(0, dot);
}

std::string cell(std::string_view s) {
  std::string r;
  for (char c : s) {
    if (c == '|')
      r += "\\|";
    else if (c == '\n' || c == '\r')
      r += ' ';
    else
      r += c;
  }
  return r;
}

std::string quoted_default(const ParamDecl& p) {
  return p.kind == Kind::kString ? "\"" + p.default_text + "\"" : p.default_text;
}

// Calls fn(group_path, description) for the top level (if it has parameters) and each group,
// with the parameters directly inside.
template <typename Fn>
void for_each_section(const Schema& schema, Fn fn) {
  std::vector<const ParamDecl*> top;
  for (const auto& p : schema.params())
    if (parent_of(p.path).empty()) top.push_back(&p);
  if (!top.empty()) fn(std::string(), std::string(), top);
  for (const auto& g : schema.groups()) {
    std::vector<const ParamDecl*> ps;
    for (const auto& p : schema.params())
      if (parent_of(p.path) == g.path) ps.push_back(&p);
    fn(g.path, g.description, ps);
  }
}

}  // namespace

std::string reference_markdown(const Schema& schema) {
  std::string out;
  for_each_section(schema, [&](const std::string& group, const std::string& desc,
                               const std::vector<const ParamDecl*>& params) {
    out += group.empty() ? "## Top level\n\n" : fmt::format("## `{}`\n\n", group);
    if (!desc.empty()) out += desc + "\n\n";
    if (params.empty()) return;
    out += "| Key | Type | Default | Unit | Rules | Description | Source |\n";
    out += "|---|---|---|---|---|---|---|\n";
    for (const ParamDecl* p : params) {
      out += fmt::format("| `{}` | {} | `{}` | {} | {} | {} | {} |\n", p->path, kind_name(p->kind),
                         cell(quoted_default(*p)), cell(p->unit), cell(p->rules_text),
                         cell(p->description), cell(p->source));
    }
    out += "\n";
  });
  return out;
}

std::string reference_text(const Schema& schema, const Config* values) {
  std::string out;
  for_each_section(schema, [&](const std::string& group, const std::string& desc,
                               const std::vector<const ParamDecl*>& params) {
    out += group.empty() ? "[top level]" : "[" + group + "]";
    out += desc.empty() ? "\n" : " " + desc + "\n";
    for (const ParamDecl* p : params) {
      const bool have = values && values->contains(p->path);
      std::string shown = p->default_text;
      std::string source = p->source;
      std::string details(kind_name(p->kind));
      if (!p->rules_text.empty()) details += "; " + p->rules_text;
      if (have) {
        shown = values->text(p->path);
        source = values->source_of(p->path);
        if (!values->is_default(p->path))
          details +=
              fmt::format("; default {}; from {}", quoted_default(*p), values->origin_of(p->path));
        // A placeholder (-1 = "the timing set's value") shows the value it stands for.
        if (p->effective) {
          const ValueLookup lookup = [values](std::string_view path) -> const Value& {
            return values->value(path);
          };
          if (auto eff = p->effective(values->value(p->path), lookup)) {
            details += fmt::format("; {}: the value of {}", shown, eff->origin);
            shown = eff->text;
            source = eff->source;
          }
        }
      }
      if (p->kind == Kind::kString) shown = "\"" + shown + "\"";
      out += fmt::format("  {} = {}{}  ({})\n", p->path, shown,
                         p->unit.empty() ? "" : " " + p->unit, details);
      std::string doc = p->description;
      if (!source.empty()) {
        if (!doc.empty()) doc += doc.back() == '.' ? " " : ". ";
        doc += "Source: " + source;
      }
      if (!doc.empty()) out += "      " + doc + "\n";
    }
  });
  return out;
}

}  // namespace simtlab::config
