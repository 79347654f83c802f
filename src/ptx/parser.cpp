#include "ptx/parser.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "base/bits.h"
#include "ptx/cfg.h"
#include "ptx/layout.h"
#include "ptx/lexer.h"

namespace simtlab::ptx {

namespace {

// ---- modifier vocabularies -------------------------------------------------------------------

const std::unordered_map<std::string_view, Type>& type_table() {
  static const std::unordered_map<std::string_view, Type> t = {
      {".pred", Type::pred},     {".b8", Type::b8},     {".b16", Type::b16},
      {".b32", Type::b32},       {".b64", Type::b64},   {".b128", Type::b128},
      {".u8", Type::u8},         {".u16", Type::u16},   {".u32", Type::u32},
      {".u64", Type::u64},       {".s8", Type::s8},     {".s16", Type::s16},
      {".s32", Type::s32},       {".s64", Type::s64},   {".f16", Type::f16},
      {".f16x2", Type::f16x2},   {".bf16", Type::bf16}, {".bf16x2", Type::bf16x2},
      {".tf32", Type::tf32},     {".f32", Type::f32},   {".f64", Type::f64},
      {".e4m3", Type::e4m3},     {".e5m2", Type::e5m2}, {".e4m3x2", Type::e4m3x2},
      {".e5m2x2", Type::e5m2x2}, {".s4", Type::s4},     {".u4", Type::u4},
      {".b1", Type::b1},
  };
  return t;
}

std::optional<Space> space_of(std::string_view s) {
  if (s == ".global") return Space::global;
  if (s == ".shared" || s == ".shared::cta") return Space::shared;
  if (s == ".shared::cluster") return Space::shared_cluster;
  if (s == ".local") return Space::local;
  if (s == ".const") return Space::const_;
  if (s == ".param" || s == ".param::entry" || s == ".param::func") return Space::param;
  if (s == ".tex") return Space::tex;
  return std::nullopt;
}

/// The value of `s` in a modifier table, or nullopt.
template <class T>
std::optional<T> lookup(const std::unordered_map<std::string_view, T>& t, std::string_view s) {
  auto it = t.find(s);
  if (it == t.end()) return std::nullopt;
  return it->second;
}

std::optional<Cmp> cmp_of(std::string_view s) {
  static const std::unordered_map<std::string_view, Cmp> t = {
      {".eq", Cmp::eq},   {".ne", Cmp::ne},   {".lt", Cmp::lt},   {".le", Cmp::le},
      {".gt", Cmp::gt},   {".ge", Cmp::ge},   {".lo", Cmp::lo},   {".ls", Cmp::ls},
      {".hi", Cmp::hi},   {".hs", Cmp::hs},   {".equ", Cmp::equ}, {".neu", Cmp::neu},
      {".ltu", Cmp::ltu}, {".leu", Cmp::leu}, {".gtu", Cmp::gtu}, {".geu", Cmp::geu},
      {".num", Cmp::num}, {".nan", Cmp::nan}};
  return lookup(t, s);
}

std::optional<Round> round_of(std::string_view s) {
  static const std::unordered_map<std::string_view, Round> t = {
      {".rn", Round::rn},   {".rz", Round::rz},   {".rm", Round::rm},   {".rp", Round::rp},
      {".rna", Round::rna}, {".rni", Round::rni}, {".rzi", Round::rzi}, {".rmi", Round::rmi},
      {".rpi", Round::rpi}, {".rs", Round::rs}};
  return lookup(t, s);
}

std::optional<AtomOp> atom_of(std::string_view s) {
  static const std::unordered_map<std::string_view, AtomOp> t = {
      {".add", AtomOp::add}, {".inc", AtomOp::inc}, {".dec", AtomOp::dec}, {".exch", AtomOp::exch},
      {".cas", AtomOp::cas}, {".min", AtomOp::min}, {".max", AtomOp::max}, {".and", AtomOp::and_},
      {".or", AtomOp::or_},  {".xor", AtomOp::xor_}};
  return lookup(t, s);
}

std::optional<Geom> geom_of(std::string_view s) {
  static const std::unordered_map<std::string_view, Geom> t = {
      {".1d", Geom::d1},       {".2d", Geom::d2},     {".3d", Geom::d3},
      {".a1d", Geom::a1d},     {".a2d", Geom::a2d},   {".cube", Geom::cube},
      {".acube", Geom::acube}, {".2dms", Geom::d2ms}, {".a2dms", Geom::a2dms}};
  return lookup(t, s);
}

std::optional<std::pair<Sreg, bool>> sreg_of(std::string_view s) {
  // second: whether the register is a vector (.x/.y/.z component required)
  static const std::unordered_map<std::string_view, std::pair<Sreg, bool>> t = {
      {"%tid", {Sreg::tid, true}},
      {"%ntid", {Sreg::ntid, true}},
      {"%ctaid", {Sreg::ctaid, true}},
      {"%nctaid", {Sreg::nctaid, true}},
      {"%laneid", {Sreg::laneid, false}},
      {"%warpid", {Sreg::warpid, false}},
      {"%nwarpid", {Sreg::nwarpid, false}},
      {"%smid", {Sreg::smid, false}},
      {"%nsmid", {Sreg::nsmid, false}},
      {"%gridid", {Sreg::gridid, false}},
      {"%lanemask_eq", {Sreg::lanemask_eq, false}},
      {"%lanemask_le", {Sreg::lanemask_le, false}},
      {"%lanemask_lt", {Sreg::lanemask_lt, false}},
      {"%lanemask_ge", {Sreg::lanemask_ge, false}},
      {"%lanemask_gt", {Sreg::lanemask_gt, false}},
      {"%clock", {Sreg::clock, false}},
      {"%clock_hi", {Sreg::clock_hi, false}},
      {"%clock64", {Sreg::clock64, false}},
      {"%globaltimer", {Sreg::globaltimer, false}},
      {"%globaltimer_lo", {Sreg::globaltimer_lo, false}},
      {"%globaltimer_hi", {Sreg::globaltimer_hi, false}},
      {"%dynamic_smem_size", {Sreg::dynamic_smem_size, false}},
      {"%total_smem_size", {Sreg::total_smem_size, false}},
      {"%aggr_smem_size", {Sreg::aggr_smem_size, false}},
      {"%reserved_smem_offset_begin", {Sreg::reserved_smem_offset, false}},
      {"%is_explicit_cluster", {Sreg::is_explicit_cluster, false}},
      {"%clusterid", {Sreg::clusterid, true}},
      {"%nclusterid", {Sreg::nclusterid, true}},
      {"%cluster_ctaid", {Sreg::cluster_ctaid, true}},
      {"%cluster_nctaid", {Sreg::cluster_nctaid, true}},
      {"%cluster_ctarank", {Sreg::cluster_ctarank, false}},
      {"%cluster_nctarank", {Sreg::cluster_nctarank, false}},
  };
  auto it = t.find(s);
  if (it != t.end()) return it->second;
  if (s.starts_with("%envreg")) return std::make_pair(Sreg::envreg, false);
  if (s.starts_with("%pm")) return std::make_pair(Sreg::pm, false);
  return std::nullopt;
}

/// Opcodes whose modifiers we keep verbatim rather than decode (tensor / async-copy families).
bool verbatim_mods(Op op) {
  switch (op) {
    case Op::wmma:
    case Op::wgmma:
    case Op::mma:
    case Op::cp:
    case Op::mbarrier:
    case Op::ldmatrix:
    case Op::stmatrix:
    case Op::griddepcontrol:
    case Op::elect:
    case Op::discard:
    case Op::prefetch:
    case Op::prefetchu:
      return true;
    default:
      return false;
  }
}

bool is_mul_like(Op op) {
  return op == Op::mul || op == Op::mad || op == Op::mul24 || op == Op::mad24 || op == Op::madc ||
         op == Op::dp2a;
}

// ---- symbol scopes ------------------------------------------------------------------------

/// Deepest `{ }` nesting accepted inside a function body (the body's own braces not counted).
constexpr uint32_t kMaxBlockDepth = 256;

struct ScopeEntry {
  enum Kind : uint8_t { reg, var } kind;
  uint32_t index;
};

class Parser {
 public:
  Parser(Module& m, std::string text, std::string file, uint32_t tu)
      : m_(m), file_(std::move(file)), tu_(tu) {
    auto src = std::make_shared<std::string>(std::move(text));
    src_ = src;
    m.sources.push_back(src);
    lex_ = std::make_unique<Lexer>(*src_, file_);
    toks_ = lex_->run();
    // line start offsets for instruction text
    line_starts_.push_back(0);
    for (size_t i = 0; i < src_->size(); ++i)
      if ((*src_)[i] == '\n') line_starts_.push_back(i + 1);
  }

  void run();

 private:
  // token helpers
  const Token& peek(size_t k = 0) const { return toks_[std::min(p_ + k, toks_.size() - 1)]; }
  const Token& take() {
    const Token& t = toks_[p_];
    if (p_ + 1 < toks_.size()) ++p_;
    return t;
  }
  bool at_punct(char c) const { return peek().is(c); }
  bool at_dot(std::string_view s) const { return peek().kind == Tok::dot && peek().text == s; }
  bool accept(char c) {
    if (at_punct(c)) {
      take();
      return true;
    }
    return false;
  }
  void expect(char c, const char* what) {
    if (accept(c)) return;
    const std::string msg = fmt::format("expected '{}' {}", c, what);
    // A missing ';' (or ')' ...) at the end of a line is reported right after the last token
    // of that line, not at the start of the next statement.
    if (peek().kind != Tok::eof && p_ > 0 && peek().line != toks_[p_ - 1].line)
      err_after(toks_[p_ - 1], msg);
    err(peek(), msg);
  }
  [[noreturn]] void err_after(const Token& t, const std::string& msg) const {
    lex_->error(t.line, t.col + uint32_t(t.text.size()), msg);
  }
  [[noreturn]] void err(const Token& t, const std::string& msg) const {
    if (t.kind == Tok::eof) {
      // Point just past the last token, so the diagnostic shows the line where input stopped.
      if (toks_.size() >= 2) err_after(toks_[toks_.size() - 2], msg + " (unexpected end of input)");
      lex_->error(t.line, t.col, msg + " (unexpected end of input)");
    }
    lex_->error(t.line, t.col, msg);
  }
  std::string tokstr(const Token& t) const {
    if (t.kind == Tok::eof) return "end of input";
    return fmt::format("'{}'", t.text);
  }
  uint64_t expect_int(const char* what);
  std::string_view expect_ident(const char* what);

  // module level
  void directive_version();
  void skip_section();
  void skip_to_line_end(uint32_t line);
  void parse_loc();
  void finish_locs();
  void parse_function(Linkage link, bool is_entry, const Token& start);
  void parse_params(Function& f, std::vector<uint32_t>& out, bool is_entry, int fidx);
  Variable parse_param_decl(bool allow_reg);
  void parse_var_decl(Space space, Linkage link, int owner, const Token& start);
  void parse_initializer(Variable& v);
  void parse_init_value(Variable& v, std::vector<uint8_t>& bytes, uint32_t elem_size);
  void parse_perf_directives(Function& f);
  uint32_t declare_function_symbol(const std::string& name, Linkage link, const Token& at);

  // function bodies
  void parse_block();
  void parse_statement();
  void parse_reg_decl();
  void parse_prototype(const Token& name_tok);
  void parse_instruction();
  void apply_modifier(Instruction& in, const Token& t);
  void validate_instruction(Instruction& in, const Token& op_tok,
                            const std::vector<const Token*>& op_toks);
  Operand parse_operand(Instruction& in, bool allow_label);
  Operand parse_address(Instruction& in);
  Operand parse_simple_operand(Instruction& in, bool allow_label);
  void parse_call(Instruction& in);
  void check_operands(Instruction& in, const std::vector<const Token*>& op_toks);
  void check_reg(const Instruction& in, const Operand& o, Type expect, bool allow_wider,
                 const Token& at, bool is_dst);
  void normalize_imm(Operand& o, Type expect, const Token& at);
  std::optional<ScopeEntry> lookup_local(std::string_view name) const;
  int32_t lookup_var(std::string_view name) const;
  int32_t lookup_func(std::string_view name) const;
  uint32_t label_ref(std::string_view name, const Token& at);
  void finish_function();

  Module& m_;
  std::string file_;
  uint32_t tu_;
  std::shared_ptr<std::string> src_;
  std::unique_ptr<Lexer> lex_;
  std::vector<Token> toks_;
  std::vector<size_t> line_starts_;
  size_t p_ = 0;

  // module-private (non-visible) symbols of this translation unit
  std::unordered_map<std::string, uint32_t> tu_vars_, tu_funcs_;

  // current function
  Function* fn_ = nullptr;
  int32_t fidx_ = -1;
  // Source attribution (-lineinfo / -G): the last `.loc` in the current function body, with
  // the file as this unit's `.file` number; `.file` directives come after the functions, so
  // the numbers are mapped to Module::files when the unit ends (finish_locs).
  uint32_t loc_file_ = 0, loc_line_ = 0, loc_col_ = 0;
  std::vector<uint32_t> unit_file_map_;  // this unit's .file number -> Module::files index
  std::vector<uint32_t> unit_funcs_;     // functions whose bodies this unit defined
  std::vector<std::unordered_map<std::string, ScopeEntry>> scopes_;
  std::unordered_map<std::string, uint32_t> labels_;
  std::unordered_map<std::string, uint32_t> labels_proto_;  // .callprototype names
  std::vector<std::pair<uint32_t, Token>> label_uses_;      // label index, first use
  std::vector<bool> label_defined_;
  uint32_t block_depth_ = 0;  // `{ }` blocks open inside the current function body
};

uint64_t Parser::expect_int(const char* what) {
  bool neg = accept('-');
  const Token& t = peek();
  if (t.kind != Tok::integer)
    err(t, fmt::format("expected an integer {}, got {}", what, tokstr(t)));
  take();
  return neg ? uint64_t(0) - t.ival : t.ival;
}

std::string_view Parser::expect_ident(const char* what) {
  const Token& t = peek();
  if (t.kind != Tok::ident) err(t, fmt::format("expected {}, got {}", what, tokstr(t)));
  take();
  return t.text;
}

// ---- module level ---------------------------------------------------------------------------

void Parser::run() {
  // Like ptxas: a module starts with `.version` (nothing but comments before it) and has a
  // `.target` before its first variable or function. An empty file is not a module.
  if (peek().kind == Tok::eof)
    lex_->error(peek().line, peek().col,
                "empty PTX module: no .version directive (PTX starts with .version, .target)");
  if (!at_dot(".version"))
    err(peek(), fmt::format("missing .version directive at the start of the module (got {})",
                            tokstr(peek())));
  bool seen_target = false;
  while (peek().kind != Tok::eof) {
    const Token& t = peek();
    if (t.kind != Tok::dot) err(t, fmt::format("expected a directive, got {}", tokstr(t)));
    std::string_view d = t.text;
    const bool header = d == ".version" || d == ".target" || d == ".address_size" || d == ".file" ||
                        d == ".section" || d == ".loc" || d == ".pragma";
    if (!header && !seen_target)
      err(t, fmt::format("missing .target directive before {}", tokstr(t)));
    if (d == ".version") {
      if (p_ != 0) err(t, "duplicate .version directive (it must come once, first)");
      directive_version();
    } else if (d == ".target") {
      take();
      seen_target = true;
      m_.target.clear();
      do {
        m_.target.emplace_back(expect_ident("a target name (e.g. sm_75)"));
      } while (accept(','));
    } else if (d == ".address_size") {
      take();
      uint64_t a = expect_int("address size");
      if (a != 32 && a != 64) err(t, "address size must be 32 or 64");
      m_.address_size = uint32_t(a);
    } else if (d == ".file") {
      take();
      uint64_t n = expect_int("file number");
      const Token& s = peek();
      if (s.kind != Tok::string) err(s, "expected a file name string");
      take();
      if (n < 1 << 16) {
        if (m_.files.empty()) m_.files.emplace_back();  // index 0: no source file
        if (unit_file_map_.size() <= n) unit_file_map_.resize(n + 1, 0);
        unit_file_map_[n] = uint32_t(m_.files.size());
        m_.files.emplace_back(s.text.substr(1, s.text.size() - 2));
      }
      while (accept(',')) expect_int("timestamp/size");
    } else if (d == ".section") {
      skip_section();
    } else if (d == ".loc") {
      skip_to_line_end(t.line);
    } else if (d == ".pragma") {
      take();
      if (peek().kind != Tok::string) err(peek(), "expected a string after .pragma");
      take();
      expect(';', "after .pragma");
    } else {
      Linkage link = Linkage::none;
      const Token start = t;
      if (d == ".visible" || d == ".extern" || d == ".weak" || d == ".common") {
        link = d == ".visible"  ? Linkage::visible
               : d == ".extern" ? Linkage::extern_
               : d == ".weak"   ? Linkage::weak
                                : Linkage::common;
        take();
        if (peek().kind != Tok::dot)
          err(peek(), "expected .entry, .func or a variable after linkage");
      }
      std::string_view k = peek().text;
      if (k == ".entry") {
        take();
        parse_function(link, true, start);
      } else if (k == ".func") {
        take();
        parse_function(link, false, start);
      } else if (auto sp = space_of(k); sp && *sp != Space::param) {
        take();
        parse_var_decl(*sp, link, -1, start);
      } else if (k == ".alias") {
        err(peek(), "unsupported directive .alias");
      } else {
        err(peek(), fmt::format("unknown or misplaced directive {}", tokstr(peek())));
      }
    }
  }
  if (!seen_target)
    err_after(toks_[toks_.size() - 2], "missing .target directive (e.g. .target sm_75)");
  finish_locs();
}

void Parser::parse_loc() {
  // .loc file line col [, function_name label [, inlined_at file line col]]
  // (PTX ISA "Debugging directives: .loc"). The first triple is the innermost location (the
  // inlined callee's line for inlined code), which is what attribution reports.
  const Token& t = take();
  const uint32_t line = t.line;
  uint64_t v[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    if (peek().kind != Tok::integer || peek().line != line)
      err(peek(),
          fmt::format(".loc expects a file number, a line and a column, got {}", tokstr(peek())));
    v[i] = expect_int(".loc operand");
  }
  loc_file_ = v[0] < (1u << 16) ? uint32_t(v[0]) : 0;
  loc_line_ = uint32_t(std::min<uint64_t>(v[1], UINT32_MAX));
  loc_col_ = uint32_t(std::min<uint64_t>(v[2], UINT32_MAX));
  while (peek().kind != Tok::eof && peek().line == line) take();
}

void Parser::finish_locs() {
  for (uint32_t fi : unit_funcs_)
    for (Instruction& in : m_.funcs[fi].insts)
      if (in.src_file)
        in.src_file = in.src_file < unit_file_map_.size() ? unit_file_map_[in.src_file] : 0;
  for (uint32_t fi : unit_funcs_)
    for (Instruction& in : m_.funcs[fi].insts)
      if (!in.src_file) in.src_line = in.src_col = 0;  // no .file for it: unknown, not "line N"
}

void Parser::directive_version() {
  const Token& t = take();
  const Token& v = peek();
  // `major.minor`, each a small decimal number (PTX ISA versions are 1.0 ... 9.x). Digits are
  // checked here: the token's value would wrap (99999999999999999999.0) or lose the minor.
  auto number = [&](std::string_view digits) {
    if (digits.empty() ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      err(v, fmt::format("malformed .version {} (expected major.minor, e.g. 9.0)", tokstr(v)));
    if (digits.size() > 3)
      err(v,
          fmt::format(".version {} is out of range (expected major.minor, e.g. 9.0)", tokstr(v)));
    uint32_t n = 0;
    for (char c : digits) n = n * 10 + uint32_t(c - '0');
    return n;
  };
  if (v.kind == Tok::decfloat) {
    take();
    auto dot = v.text.find('.');
    if (dot == std::string_view::npos) number("");  // e.g. 9e0
    m_.version_major = number(v.text.substr(0, dot));
    m_.version_minor = number(v.text.substr(dot + 1));
  } else if (v.kind == Tok::integer) {
    take();
    m_.version_major = number(v.text);
    m_.version_minor = 0;
  } else {
    err(v, "expected a version number like 9.0");
  }
  if (m_.version_major > 9 || (m_.version_major == 9 && m_.version_minor > 9))
    err(t, fmt::format("PTX ISA version {}.{} is newer than simtlab supports (up to 9.x)",
                       m_.version_major, m_.version_minor));
}

void Parser::skip_section() {
  const Token& s = take();
  // .section name { ... }  (debug info); skip balanced braces.
  while (peek().kind != Tok::eof && !at_punct('{')) take();
  if (!accept('{')) err(s, "expected '{' after .section name");
  int depth = 1;
  while (depth > 0) {
    const Token& t = take();
    if (t.kind == Tok::eof) err(s, "unterminated .section");
    if (t.is('{')) ++depth;
    if (t.is('}')) --depth;
  }
}

void Parser::skip_to_line_end(uint32_t line) {
  take();
  while (peek().kind != Tok::eof && peek().line == line) take();
}

uint32_t Parser::declare_function_symbol(const std::string& name, Linkage link, const Token& at) {
  const bool global = link == Linkage::visible || link == Linkage::extern_ || link == Linkage::weak;
  auto& table = global ? m_.func_index : tu_funcs_;
  auto it = table.find(name);
  if (it == table.end() && !global) {
    // A private function may also have been declared visible earlier under the same name.
    auto g = m_.func_index.find(name);
    if (g != m_.func_index.end() && tu_ == 0) it = g;
  }
  if (it != table.end()) return it->second;
  Function f;
  f.name = name;
  f.linkage = link;
  f.line = at.line;
  f.col = at.col;
  f.source_file = file_;
  m_.funcs.push_back(std::move(f));
  uint32_t idx = uint32_t(m_.funcs.size() - 1);
  table[name] = idx;
  return idx;
}

Variable Parser::parse_param_decl(bool allow_reg) {
  Variable v;
  v.is_param = true;
  const Token& sp = peek();
  if (at_dot(".param")) {
    take();
    v.space = Space::param;
  } else if (allow_reg && at_dot(".reg")) {
    take();
    v.space = Space::reg;
  } else {
    err(sp, fmt::format("expected .param, got {}", tokstr(sp)));
  }
  for (;;) {
    const Token& t = peek();
    if (t.kind != Tok::dot) break;
    if (t.text == ".align") {
      take();
      uint64_t a = expect_int("alignment");
      if (!is_pow2(a) || a > (1u << 20)) err(t, "alignment must be a power of two");
      // After `.ptr` the alignment is the pointee's (`.ptr .global .align 16`); it does not
      // change where the parameter itself is placed (checked against ptxas's KPARAM_INFO).
      if (!v.is_ptr) v.align = uint32_t(a);
    } else if (t.text == ".ptr") {
      take();
      v.is_ptr = true;
    } else if (auto s = space_of(t.text); s && v.is_ptr) {
      take();
      v.ptr_space = *s;
    } else if (t.text == ".v2" || t.text == ".v4") {
      take();
      v.vec = t.text == ".v2" ? 2 : 4;
    } else if (auto ty = type_table().find(t.text); ty != type_table().end()) {
      take();
      v.type = ty->second;
    } else {
      err(t, fmt::format("unexpected {} in parameter declaration", tokstr(t)));
    }
  }
  const Token& n = peek();
  if (n.kind != Tok::ident) err(n, fmt::format("expected a parameter name, got {}", tokstr(n)));
  take();
  v.name = std::string(n.text);
  v.line = n.line;
  v.col = n.col;
  uint64_t count = 1;
  while (accept('[')) {
    if (at_punct(']')) {
      v.unsized = true;
    } else {
      const uint64_t c = expect_int("array size");
      if (c > (uint64_t(1) << 32) || (c && count > (uint64_t(1) << 32) / c))
        err(n, "parameter array too large");
      count *= c;
    }
    expect(']', "after array size");
  }
  if (v.type == Type::none) err(n, "parameter without a type");
  v.size = v.unsized ? 0 : count * type_size(v.type) * v.vec;  // < 2^39: no overflow
  if (v.size > kMaxStaticBytes)
    err(n, fmt::format("parameter '{}' is {} bytes, more than the {}-byte limit", v.name, v.size,
                       kMaxStaticBytes));
  return v;
}

void Parser::parse_params(Function& f, std::vector<uint32_t>& out, bool is_entry, int fidx) {
  expect('(', "to open the parameter list");
  if (accept(')')) return;
  do {
    Variable v = parse_param_decl(!is_entry);
    v.owner = fidx;
    m_.vars.push_back(std::move(v));
    out.push_back(uint32_t(m_.vars.size() - 1));
  } while (accept(','));
  expect(')', "to close the parameter list");
  if (is_entry) {
    // The parameter space of a kernel, laid out as layout_params() does (64-bit sums: every
    // parameter is at most kMaxStaticBytes).
    uint64_t off = 0;
    for (uint32_t vi : out) {
      const Variable& v = m_.vars[vi];
      off = align_up(off, std::max<uint32_t>(1, v.natural_align())) + v.size;
      if (off > kMaxKernelParamBytes)
        lex_->error(v.line, v.col,
                    fmt::format("the parameters of kernel '{}' take {} bytes up to '{}', more than "
                                "the {} bytes CUDA allows",
                                f.name, off, v.name, kMaxKernelParamBytes));
    }
  }
}

void Parser::parse_perf_directives(Function& f) {
  for (;;) {
    const Token& t = peek();
    if (t.kind != Tok::dot) return;
    auto dims = [&](Dim3& d) {
      take();
      d.x = uint32_t(expect_int("dimension"));
      d.y = accept(',') ? uint32_t(expect_int("dimension")) : 1;
      d.z = accept(',') ? uint32_t(expect_int("dimension")) : 1;
    };
    if (t.text == ".maxntid") {
      dims(f.maxntid);
    } else if (t.text == ".reqntid") {
      dims(f.reqntid);
    } else if (t.text == ".minnctapersm") {
      take();
      f.minnctapersm = uint32_t(expect_int("CTA count"));
    } else if (t.text == ".maxnctapersm") {
      take();
      expect_int("CTA count");
    } else if (t.text == ".maxnreg") {
      take();
      f.maxnreg = uint32_t(expect_int("register count"));
    } else if (t.text == ".maxclusterrank") {
      take();
      f.maxclusterrank = uint32_t(expect_int("cluster rank"));
    } else if (t.text == ".reqnctapercluster") {
      dims(f.reqnctapercluster);
    } else if (t.text == ".explicitcluster") {
      take();
      f.explicitcluster = true;
    } else if (t.text == ".noreturn") {
      take();
      f.noreturn = true;
    } else if (t.text == ".pragma") {
      take();
      if (peek().kind != Tok::string) err(peek(), "expected a string after .pragma");
      f.pragmas.emplace_back(take().text);
      expect(';', "after .pragma");
    } else if (t.text == ".attribute") {
      take();
      expect('(', "after .attribute");
      while (!at_punct(')') && peek().kind != Tok::eof) take();
      expect(')', "to close .attribute");
    } else {
      return;
    }
  }
}

void Parser::parse_function(Linkage link, bool is_entry, const Token& start) {
  std::vector<Variable> rets;
  if (!is_entry && at_punct('(')) {
    take();
    if (!accept(')')) {
      do {
        rets.push_back(parse_param_decl(true));
      } while (accept(','));
      expect(')', "to close the return parameter list");
    }
  }
  // `.attribute(.unified(...))` may precede the name on .func
  if (at_dot(".attribute")) {
    Function tmp;
    parse_perf_directives(tmp);
  }
  const Token& name_tok = peek();
  if (name_tok.kind != Tok::ident)
    err(name_tok, fmt::format("expected a function name, got {}", tokstr(name_tok)));
  take();
  const std::string name(name_tok.text);
  const uint32_t fidx = declare_function_symbol(name, link, name_tok);
  Function& f = m_.funcs[fidx];
  const bool redeclaration = !f.params.empty() || !f.rets.empty() || f.defined;
  std::vector<uint32_t> params, retidx;
  for (auto& r : rets) {
    r.owner = int32_t(fidx);
    m_.vars.push_back(std::move(r));
    retidx.push_back(uint32_t(m_.vars.size() - 1));
  }
  if (at_punct('(')) parse_params(f, params, is_entry, int32_t(fidx));
  Function& fr = m_.funcs[fidx];  // reference may not move (vector of funcs unchanged here)
  parse_perf_directives(fr);
  if (accept(';')) {
    // declaration only
    if (!redeclaration) {
      fr.params = params;
      fr.rets = retidx;
      fr.is_entry = is_entry;
      if (link != Linkage::none) fr.linkage = link;
    }
    return;
  }
  if (!at_punct('{'))
    err(peek(), fmt::format("expected '{{' or ';' after function header, got {}", tokstr(peek())));
  if (fr.defined) {
    // Two definitions of one visible function (e.g. the same TU added twice): keep the
    // first unless it is weak.
    if (fr.linkage != Linkage::weak)
      err(name_tok, fmt::format("function '{}' is defined twice", name));
  }
  fr.params = params;
  fr.rets = retidx;
  fr.is_entry = is_entry;
  fr.defined = true;
  fr.linkage = link == Linkage::extern_ ? Linkage::visible : link;
  fr.line = start.line;
  fr.col = start.col;
  fr.source_file = file_;
  fr.insts.clear();
  fr.regs.clear();
  fr.label_names.clear();
  fr.label_target.clear();
  fr.locals.clear();

  fn_ = &fr;
  fidx_ = int32_t(fidx);
  loc_file_ = loc_line_ = loc_col_ = 0;
  if (std::find(unit_funcs_.begin(), unit_funcs_.end(), fidx) == unit_funcs_.end())
    unit_funcs_.push_back(fidx);
  scopes_.clear();
  scopes_.emplace_back();
  labels_.clear();
  labels_proto_.clear();
  label_uses_.clear();
  label_defined_.clear();
  for (uint32_t pi : fr.params) {
    const Variable& pv = m_.vars[pi];
    if (pv.space == Space::reg) {
      // .reg parameters of .func behave like registers
      Register r;
      r.name = pv.name;
      r.type = pv.type;
      fr.regs.push_back(r);
      scopes_.back()[pv.name] = ScopeEntry{ScopeEntry::reg, uint32_t(fr.regs.size() - 1)};
    } else {
      scopes_.back()[pv.name] = ScopeEntry{ScopeEntry::var, pi};
    }
  }
  for (uint32_t ri : fr.rets) {
    const Variable& pv = m_.vars[ri];
    if (pv.space == Space::reg) {
      Register r;
      r.name = pv.name;
      r.type = pv.type;
      fr.regs.push_back(r);
      scopes_.back()[pv.name] = ScopeEntry{ScopeEntry::reg, uint32_t(fr.regs.size() - 1)};
    } else {
      scopes_.back()[pv.name] = ScopeEntry{ScopeEntry::var, ri};
    }
  }
  take();  // '{'
  parse_block();
  finish_function();
  fn_ = nullptr;
  fidx_ = -1;
}

void Parser::finish_function() {
  Function& f = *fn_;
  for (size_t i = 0; i < label_defined_.size(); ++i) {
    if (!label_defined_[i]) {
      for (auto& [li, tok] : label_uses_)
        if (li == i) err(tok, fmt::format("undefined label '{}'", f.label_names[i]));
    }
  }
  // The frame's size bound (layout.h), reported here with the source line.
  try {
    (void)layout_frame(m_, uint32_t(fidx_));
  } catch (const DiagError& e) {
    lex_->error(e.loc().line, e.loc().col, e.message());
  }
  build_cfg(f);
}

void Parser::parse_var_decl(Space space, Linkage link, int owner, const Token& start) {
  Variable v;
  v.space = space;
  v.linkage = link;
  v.owner = owner;
  bool typed = false;
  for (;;) {
    const Token& t = peek();
    if (t.kind != Tok::dot) break;
    if (t.text == ".align") {
      take();
      uint64_t a = expect_int("alignment");
      if (!is_pow2(a) || a > (1u << 20)) err(t, "alignment must be a power of two");
      v.align = uint32_t(a);
    } else if (t.text == ".v2" || t.text == ".v4" || t.text == ".v8") {
      take();
      v.vec = uint32_t(t.text[2] - '0');
    } else if (t.text == ".attribute") {
      take();
      expect('(', "after .attribute");
      while (!at_punct(')') && peek().kind != Tok::eof) take();
      expect(')', "to close .attribute");
    } else if (t.text == ".texref" || t.text == ".samplerref" || t.text == ".surfref") {
      take();
      v.type = Type::b64;
      typed = true;
    } else if (auto ty = type_table().find(t.text); ty != type_table().end()) {
      take();
      if (ty->second == Type::pred) err(t, "variables cannot have type .pred");
      v.type = ty->second;
      typed = true;
    } else {
      err(t, fmt::format("unexpected {} in variable declaration", tokstr(t)));
    }
  }
  if (!typed) err(peek(), "variable declaration without a type");
  const Token& n = peek();
  if (n.kind != Tok::ident) err(n, fmt::format("expected a variable name, got {}", tokstr(n)));
  take();
  v.name = std::string(n.text);
  v.line = n.line;
  v.col = n.col;
  uint64_t count = 1;
  bool array = false;
  while (accept('[')) {
    array = true;
    if (at_punct(']')) {
      v.unsized = true;
    } else {
      uint64_t c = expect_int("array size");
      if (c > (uint64_t(1) << 36) || (c && count > (uint64_t(1) << 36) / c))
        err(n, "array too large");
      count *= c;
    }
    expect(']', "after array size");
  }
  (void)array;
  v.size = v.unsized ? 0 : count * type_size(v.type) * v.vec;  // < 2^43: no overflow
  if (space != Space::global && v.size > kMaxStaticBytes)
    err(n, fmt::format(".{} variable '{}' is {} bytes, more than the {}-byte limit",
                       space_name(space), v.name, v.size, kMaxStaticBytes));
  if (accept('=')) parse_initializer(v);
  if (v.unsized && !v.init.empty()) v.size = v.init.size();
  expect(';', "after variable declaration");

  const std::string name = v.name;
  if (owner >= 0) {
    m_.vars.push_back(std::move(v));
    uint32_t idx = uint32_t(m_.vars.size() - 1);
    fn_->locals.push_back(idx);
    if (scopes_.back().count(name))
      err(n, fmt::format("'{}' is already declared in this scope", name));
    scopes_.back()[name] = ScopeEntry{ScopeEntry::var, idx};
    return;
  }
  const bool global = link == Linkage::visible || link == Linkage::extern_ ||
                      link == Linkage::weak || link == Linkage::common;
  auto& table = global ? m_.var_index : tu_vars_;
  auto it = table.find(name);
  if (it != table.end()) {
    Variable& old = m_.vars[it->second];
    if (link == Linkage::extern_) return;  // another declaration of a known symbol
    if (old.linkage == Linkage::extern_) {
      v.owner = -1;
      old = std::move(v);  // definition replaces the extern declaration in place
      return;
    }
    if (old.linkage == Linkage::weak || old.linkage == Linkage::common) return;
    err(n, fmt::format("variable '{}' is defined twice", name));
  }
  m_.vars.push_back(std::move(v));
  table[name] = uint32_t(m_.vars.size() - 1);
  (void)start;
}

void Parser::parse_initializer(Variable& v) {
  const uint32_t es = type_size(v.type);
  std::vector<uint8_t> bytes;
  const Token* excess = nullptr;  // first element past the end of the variable
  if (at_punct('{')) {
    // possibly nested braces for multi-dimensional arrays: flatten
    take();
    int depth = 1;
    bool need_value = true;
    while (depth > 0) {
      if (at_punct('{')) {
        take();
        ++depth;
        need_value = true;
        continue;
      }
      if (at_punct('}')) {
        take();
        --depth;
        need_value = false;
        if (depth > 0) accept(',');
        continue;
      }
      if (!need_value && !accept(',')) err(peek(), "expected ',' or '}' in initializer");
      if (at_punct('{') || at_punct('}')) continue;
      if (!excess && !v.unsized && bytes.size() + es > v.size) excess = &peek();
      parse_init_value(v, bytes, es);
      need_value = false;
      if (peek().kind == Tok::eof) err(peek(), "unterminated initializer");
    }
  } else {
    parse_init_value(v, bytes, es);
  }
  if (!v.unsized && bytes.size() > v.size)
    err(excess ? *excess : peek(),
        fmt::format("initializer of '{}' has {} bytes but the variable has {}", v.name,
                    bytes.size(), v.size));
  v.init = std::move(bytes);
}

void Parser::parse_init_value(Variable& v, std::vector<uint8_t>& bytes, uint32_t es) {
  const size_t off = bytes.size();
  bytes.resize(off + es, 0);
  auto put = [&](uint64_t x) { std::memcpy(bytes.data() + off, &x, std::min<size_t>(es, 8)); };
  bool neg = accept('-');
  const Token& t = peek();
  if (t.kind == Tok::integer) {
    take();
    uint64_t x = neg ? uint64_t(0) - t.ival : t.ival;
    if (v.type == Type::f32) {
      float f = float(neg ? -double(t.ival) : double(t.ival));
      x = bitcast<uint32_t>(f);
    } else if (v.type == Type::f64) {
      x = bitcast<uint64_t>(neg ? -double(t.ival) : double(t.ival));
    }
    put(x);
  } else if (t.kind == Tok::f32bits || t.kind == Tok::f64bits || t.kind == Tok::decfloat) {
    take();
    double d = t.kind == Tok::decfloat  ? t.fval
               : t.kind == Tok::f32bits ? double(bitcast<float>(uint32_t(t.ival)))
                                        : bitcast<double>(t.ival);
    if (neg) d = -d;
    if (v.type == Type::f64) {
      put(t.kind == Tok::f64bits && !neg ? t.ival : bitcast<uint64_t>(d));
    } else if (v.type == Type::f32) {
      put(t.kind == Tok::f32bits && !neg ? t.ival : bitcast<uint32_t>(float(d)));
    } else {
      if (t.kind == Tok::decfloat)
        err(t, fmt::format("floating-point initializer for the .{} variable '{}'",
                           type_name(v.type), v.name));
      put(t.ival);
    }
  } else if (t.kind == Tok::ident && !neg) {
    // address of a symbol: sym, sym+off, generic(sym)[+off]
    bool generic = false;
    std::string_view name = t.text;
    const Token at = t;
    take();
    if (name == "generic" && accept('(')) {
      generic = true;
      name = expect_ident("a symbol in generic()");
      expect(')', "to close generic(");
    }
    int64_t add = 0;
    if (accept('+')) add = int64_t(expect_int("offset"));
    Reloc r;
    r.offset = uint32_t(off);
    r.addend = add;
    r.generic = generic;
    r.size = uint8_t(es);
    int32_t vi = lookup_var(name);
    if (vi >= 0) {
      r.target = uint32_t(vi);
    } else {
      int32_t fi = lookup_func(name);
      if (fi < 0) err(at, fmt::format("undeclared symbol '{}' in initializer", name));
      r.is_func = true;
      r.target = uint32_t(fi);
    }
    if (es < 4) err(at, "address initializers need a 32- or 64-bit element type");
    v.relocs.push_back(r);
  } else {
    err(t, fmt::format("expected an initializer value, got {}", tokstr(t)));
  }
}

// ---- function bodies -------------------------------------------------------------------------

void Parser::parse_block() {
  for (;;) {
    if (accept('}')) return;
    if (peek().kind == Tok::eof) err(peek(), "missing '}' at end of function body");
    parse_statement();
  }
}

void Parser::parse_statement() {
  const Token& t = peek();
  if (t.is('{')) {
    // parse_block and parse_statement recurse per nesting level: bound it so that hostile
    // input cannot overflow the stack (nvcc output nests a few levels; inline asm adds one).
    if (block_depth_ >= kMaxBlockDepth)
      err(t, fmt::format("blocks nested more than {} deep", kMaxBlockDepth));
    take();
    ++block_depth_;
    scopes_.emplace_back();
    parse_block();
    scopes_.pop_back();
    --block_depth_;
    return;
  }
  if (t.kind == Tok::dot) {
    if (t.text == ".reg") return parse_reg_decl();
    if (t.text == ".loc") return parse_loc();
    if (t.text == ".pragma") {
      take();
      if (peek().kind != Tok::string) err(peek(), "expected a string after .pragma");
      const Token& s = take();
      fn_->pragmas.emplace_back(s.text);
      expect(';', "after .pragma");
      return;
    }
    if (auto sp = space_of(t.text)) {
      if (*sp == Space::global) err(t, ".global variables must be declared at module scope");
      take();
      const Token start = t;
      parse_var_decl(*sp, Linkage::none, fidx_, start);
      return;
    }
    if (t.text == ".section") return skip_section();
    err(t, fmt::format("unexpected directive {} in function body", tokstr(t)));
  }
  if (t.kind == Tok::ident && peek(1).is(':')) {
    const Token name = t;
    take();
    take();
    if (at_dot(".callprototype")) return parse_prototype(name);
    std::string ln(name.text);
    // Marker labels (include/simtlab/xfer.h) sit in their own { } scope and may repeat when
    // the compiler unrolls or inlines the code around them: each copy is a label of its own.
    if (ln.rfind("__simtlab_xfer", 0) == 0 && labels_.count(ln))
      ln += fmt::format("#{}", fn_->label_names.size());
    auto it = labels_.find(ln);
    uint32_t li;
    if (it == labels_.end()) {
      li = uint32_t(fn_->label_names.size());
      fn_->label_names.push_back(ln);
      fn_->label_target.push_back(-1);
      label_defined_.push_back(false);
      labels_[ln] = li;
    } else {
      li = it->second;
    }
    if (label_defined_[li]) err(name, fmt::format("label '{}' is defined twice", ln));
    label_defined_[li] = true;
    fn_->label_target[li] = int32_t(fn_->insts.size());
    return;
  }
  if (t.kind == Tok::ident || t.is('@')) return parse_instruction();
  err(t, fmt::format("expected an instruction, label or declaration, got {}", tokstr(t)));
}

void Parser::parse_reg_decl() {
  take();  // .reg
  Register proto;
  bool typed = false;
  while (peek().kind == Tok::dot) {
    const Token& t = take();
    if (t.text == ".v2" || t.text == ".v4") {
      proto.vec = uint32_t(t.text[2] - '0');
    } else if (auto ty = type_table().find(t.text); ty != type_table().end()) {
      proto.type = ty->second;
      typed = true;
    } else {
      err(t, fmt::format("unexpected {} in .reg declaration", tokstr(t)));
    }
  }
  if (!typed) err(peek(), ".reg declaration without a type");
  if (proto.vec != 1) err(peek(), "vector registers (.reg .v2/.v4) are not supported");
  do {
    const Token& n = peek();
    if (n.kind != Tok::ident) err(n, fmt::format("expected a register name, got {}", tokstr(n)));
    take();
    auto add = [&](const std::string& name) {
      if (scopes_.back().count(name))
        err(n, fmt::format("register '{}' is already declared in this scope", name));
      Register r = proto;
      r.name = name;
      fn_->regs.push_back(r);
      scopes_.back()[name] = ScopeEntry{ScopeEntry::reg, uint32_t(fn_->regs.size() - 1)};
    };
    if (accept('<')) {
      uint64_t cnt = expect_int("register count");
      expect('>', "after register count");
      if (cnt > (1u << 20)) err(n, "too many registers in one declaration");
      for (uint64_t i = 0; i < cnt; ++i) add(fmt::format("{}{}", n.text, i));
    } else {
      add(std::string(n.text));
    }
  } while (accept(','));
  expect(';', "after .reg declaration");
}

void Parser::parse_prototype(const Token& name_tok) {
  take();  // .callprototype
  Prototype p;
  p.name = std::string(name_tok.text);
  if (at_punct('(')) {
    take();
    if (!accept(')')) {
      do {
        p.rets.push_back(parse_param_decl(true));
      } while (accept(','));
      expect(')', "in .callprototype return list");
    }
  }
  expect_ident("'_' in .callprototype");
  if (at_punct('(')) {
    take();
    if (!accept(')')) {
      do {
        p.params.push_back(parse_param_decl(true));
      } while (accept(','));
      expect(')', "in .callprototype parameter list");
    }
  }
  while (peek().kind == Tok::dot) take();  // .noreturn etc.
  expect(';', "after .callprototype");
  fn_->prototypes.push_back(std::move(p));
  // The prototype name is referenced by indirect calls; record it as a label-like symbol.
  labels_proto_[std::string(name_tok.text)] = uint32_t(fn_->prototypes.size() - 1);
}

std::optional<ScopeEntry> Parser::lookup_local(std::string_view name) const {
  const std::string key(name);
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->find(key);
    if (f != it->end()) return f->second;
  }
  return std::nullopt;
}

int32_t Parser::lookup_var(std::string_view name) const {
  const std::string key(name);
  if (fn_) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(key);
      if (f != it->end() && f->second.kind == ScopeEntry::var) return int32_t(f->second.index);
    }
  }
  if (auto it = tu_vars_.find(key); it != tu_vars_.end()) return int32_t(it->second);
  if (auto it = m_.var_index.find(key); it != m_.var_index.end()) return int32_t(it->second);
  return -1;
}

int32_t Parser::lookup_func(std::string_view name) const {
  const std::string key(name);
  if (auto it = tu_funcs_.find(key); it != tu_funcs_.end()) return int32_t(it->second);
  if (auto it = m_.func_index.find(key); it != m_.func_index.end()) return int32_t(it->second);
  return -1;
}

uint32_t Parser::label_ref(std::string_view name, const Token& at) {
  const std::string ln(name);
  auto it = labels_.find(ln);
  if (it != labels_.end()) return it->second;
  uint32_t li = uint32_t(fn_->label_names.size());
  fn_->label_names.push_back(ln);
  fn_->label_target.push_back(-1);
  label_defined_.push_back(false);
  labels_[ln] = li;
  label_uses_.emplace_back(li, at);
  return li;
}

// ---- instructions ----------------------------------------------------------------------------

void Parser::apply_modifier(Instruction& in, const Token& t) {
  const std::string_view s = t.text;
  const Op op = in.op;
  auto bad = [&]() { err(t, fmt::format("modifier '{}' is not valid for '{}'", s, op_name(op))); };
  // Types first: the first type is the instruction type, the next ones secondary.
  if (auto ty = type_table().find(s); ty != type_table().end()) {
    if (in.type == Type::none) {
      in.type = ty->second;
    } else if (in.type2 == Type::none) {
      in.type2 = ty->second;
    } else {
      in.extra.emplace_back(s);  // dp4a/mma/wmma carry three or more types
    }
    return;
  }
  if (verbatim_mods(op)) {
    if (auto sp = space_of(s)) {
      if (in.space == Space::generic)
        in.space = *sp;
      else
        in.space2 = *sp;
    }
    in.extra.emplace_back(s);
    return;
  }
  if (auto sp = space_of(s)) {
    switch (op) {
      case Op::ld:
      case Op::st:
      case Op::ldu:
      case Op::atom:
      case Op::red:
      case Op::cvta:
      case Op::isspacep:
      case Op::prefetch:
      case Op::tex:
      case Op::mapa:
      case Op::getctarank:
        in.space = *sp;
        return;
      case Op::fence:  // fence.proxy.async.shared::cta / .global (state space of the proxy fence)
        in.space = *sp;
        in.extra.emplace_back(s);
        return;
      default:
        bad();
    }
  }
  if (auto r = round_of(s)) {
    in.rnd = *r;
    return;
  }
  if (s == ".hi" || s == ".lo") {
    if (is_mul_like(op)) {
      in.sub = uint8_t(s == ".hi" ? MulMode::hi : MulMode::lo);
      return;
    }
    if (op == Op::setp || op == Op::set) {
      in.cmp = s == ".hi" ? Cmp::hi : Cmp::lo;
      return;
    }
    bad();
  }
  if (s == ".wide") {
    if (op == Op::mul || op == Op::mad) {
      in.sub = uint8_t(MulMode::wide);
      return;
    }
    bad();
  }
  if (op == Op::setp || op == Op::set) {
    if (auto c = cmp_of(s)) {
      if (in.cmp == Cmp::none) {
        in.cmp = *c;
        return;
      }
    }
    if (s == ".and" || s == ".or" || s == ".xor") {
      in.boolop = s == ".and" ? BoolOp::and_ : s == ".or" ? BoolOp::or_ : BoolOp::xor_;
      return;
    }
  }
  if (op == Op::bar || op == Op::barrier) {
    if (s == ".sync") {
      in.flags |= IF_SYNC;
      return;
    }
    if (s == ".arrive") {
      in.flags |= IF_ARRIVE;
      return;
    }
    if (s == ".wait" && op == Op::barrier) {  // barrier.cluster.wait (sm_90)
      in.flags |= IF_SYNC;
      return;
    }
    if (op == Op::barrier && s == ".cluster") {  // barrier.cluster.{arrive,wait} (sm_90)
      in.scope = Scope::cluster;
      return;
    }
    if (op == Op::barrier && in.scope == Scope::cluster &&
        (s == ".relaxed" || s == ".release" || s == ".acquire")) {
      in.sem = s == ".relaxed" ? Sem::relaxed : s == ".release" ? Sem::release : Sem::acquire;
      return;
    }
    if (s == ".red") {
      in.flags |= IF_RED;
      return;
    }
    if (s == ".warp") {
      in.flags |= IF_WARP;
      return;
    }
    if (s == ".aligned" || s == ".cta") {
      in.flags |= IF_ALIGNED;
      return;
    }
    if (s == ".popc") {
      in.boolop = BoolOp::popc;
      return;
    }
    if (s == ".and") {
      in.boolop = BoolOp::and_;
      return;
    }
    if (s == ".or") {
      in.boolop = BoolOp::or_;
      return;
    }
    bad();
  }
  if (op == Op::atom || op == Op::red || op == Op::redux) {
    if (auto a = atom_of(s)) {
      in.sub = uint8_t(*a);
      return;
    }
  }
  if (op == Op::shfl) {
    if (s == ".up") {
      in.sub = uint8_t(ShflMode::up);
      return;
    }
    if (s == ".down") {
      in.sub = uint8_t(ShflMode::down);
      return;
    }
    if (s == ".bfly") {
      in.sub = uint8_t(ShflMode::bfly);
      return;
    }
    if (s == ".idx") {
      in.sub = uint8_t(ShflMode::idx);
      return;
    }
  }
  if (op == Op::vote || op == Op::match) {
    if (s == ".all") {
      in.sub = uint8_t(VoteMode::all);
      return;
    }
    if (s == ".any") {
      in.sub = uint8_t(VoteMode::any);
      return;
    }
    if (s == ".uni") {
      in.sub = uint8_t(VoteMode::uni);
      return;
    }
    if (s == ".ballot") {
      in.sub = uint8_t(VoteMode::ballot);
      return;
    }
  }
  if (op == Op::vabsdiff || op == Op::vabsdiff2 || op == Op::vabsdiff4 || op == Op::vadd) {
    if (auto a = atom_of(s)) {
      in.sub = uint8_t(*a);  // secondary operation .add/.min/.max
      return;
    }
    if (s == ".sat") {
      in.flags |= IF_SAT;
      return;
    }
  }
  if (op == Op::prmt) {
    static const std::unordered_map<std::string_view, uint8_t> modes = {
        {".f4e", 1}, {".b4e", 2}, {".rc8", 3}, {".ecl", 4}, {".ecr", 5}, {".rc16", 6}};
    if (auto it = modes.find(s); it != modes.end()) {
      in.sub = it->second;
      return;
    }
  }
  if (op == Op::testp) {
    static const std::unordered_map<std::string_view, uint8_t> modes = {
        {".finite", 1},     {".infinite", 2}, {".number", 3},
        {".notanumber", 4}, {".normal", 5},   {".subnormal", 6}};
    if (auto it = modes.find(s); it != modes.end()) {
      in.sub = it->second;
      return;
    }
  }
  if (op == Op::tex || op == Op::suld || op == Op::sust || op == Op::tld4 || op == Op::txq ||
      op == Op::suq) {
    if (auto g = geom_of(s)) {
      in.geom = *g;
      return;
    }
    if (s == ".level") {
      in.flags |= IF_LEVEL;
      return;
    }
    if (s == ".grad") {
      in.flags |= IF_GRAD;
      return;
    }
    if (s == ".base") return;
    if (s == ".b") return;
    if (s == ".p") {
      in.flags |= IF_SURF_P;
      return;
    }
    if (s == ".trap") {
      in.flags |= IF_TRAP;
      return;
    }
    if (s == ".clamp") {
      in.flags |= IF_CLAMP;
      return;
    }
    if (s == ".zero") {
      in.flags |= IF_ZERO;
      return;
    }
    if (s == ".r" || s == ".g" || s == ".b" || s == ".a") {
      in.extra.emplace_back(s);
      return;
    }
    if (op == Op::txq || op == Op::suq) {
      in.extra.emplace_back(s);
      return;
    }
  }
  if (s == ".v2" || s == ".v4" || s == ".v8") {
    switch (op) {
      case Op::ld:
      case Op::st:
      case Op::ldu:
      case Op::tex:
      case Op::suld:
      case Op::sust:
      case Op::tld4:
      case Op::atom:
      case Op::red:
      case Op::mov:
        in.vec = uint8_t(s[2] - '0');
        return;
      default:
        bad();
    }
  }
  // Memory operations.
  const bool memop = op == Op::ld || op == Op::st || op == Op::ldu || op == Op::atom ||
                     op == Op::red || op == Op::fence || op == Op::membar || op == Op::prefetch;
  if (memop) {
    static const std::unordered_map<std::string_view, CacheOp> cops = {
        {".ca", CacheOp::ca}, {".cg", CacheOp::cg}, {".cs", CacheOp::cs}, {".lu", CacheOp::lu},
        {".cv", CacheOp::cv}, {".wb", CacheOp::wb}, {".wt", CacheOp::wt}};
    if (auto it = cops.find(s);
        it != cops.end() && (op == Op::ld || op == Op::st || op == Op::ldu)) {
      in.cache = it->second;
      return;
    }
    static const std::unordered_map<std::string_view, Sem> sems = {
        {".weak", Sem::weak},          {".relaxed", Sem::relaxed}, {".acquire", Sem::acquire},
        {".release", Sem::release},    {".acq_rel", Sem::acq_rel}, {".sc", Sem::sc},
        {".volatile", Sem::volatile_}, {".mmio", Sem::mmio}};
    if (auto it = sems.find(s); it != sems.end()) {
      in.sem = it->second;
      if (it->second == Sem::volatile_) in.flags |= IF_VOLATILE;
      return;
    }
    static const std::unordered_map<std::string_view, Scope> scopes = {{".cta", Scope::cta},
                                                                       {".cluster", Scope::cluster},
                                                                       {".gpu", Scope::gpu},
                                                                       {".sys", Scope::sys},
                                                                       {".gl", Scope::gpu}};
    if (auto it = scopes.find(s); it != scopes.end()) {
      in.scope = it->second;
      return;
    }
    if (s == ".nc") {
      if (op != Op::ld) bad();
      in.flags |= IF_NC;
      return;
    }
    if (s.starts_with(".L1::") || s.starts_with(".L2::") || s == ".L1" || s == ".L2" ||
        s.starts_with(".proxy") || s == ".mbarrier_init" || s == ".async" || s == ".alias" ||
        s == ".unified" || s == ".noftz") {
      if (s == ".L2::cache_hint") in.flags |= IF_OOB;  // extra cache-policy operand follows
      in.extra.emplace_back(s);
      return;
    }
    if (s == ".noinc" || s == ".nan") {  // red/atom .noftz etc.
      in.extra.emplace_back(s);
      return;
    }
  }
  if (op == Op::cvta && s == ".to") {
    in.flags |= IF_TO;
    return;
  }
  if (op == Op::isspacep) bad();
  if (s == ".ftz") {
    in.flags |= IF_FTZ;
    return;
  }
  if (s == ".sat" || s == ".satfinite") {
    in.flags |= IF_SAT;
    return;
  }
  if (s == ".approx") {
    in.flags |= IF_APPROX;
    return;
  }
  if (s == ".full") {
    in.flags |= IF_FULL;
    return;
  }
  if (s == ".cc") {
    if (op == Op::add || op == Op::sub || op == Op::addc || op == Op::subc || op == Op::mad ||
        op == Op::madc) {
      in.flags |= IF_CC;
      return;
    }
    bad();
  }
  if (s == ".uni") {
    if (op == Op::bra || op == Op::call || op == Op::ret || op == Op::brx) {
      in.flags |= IF_UNI;
      return;
    }
    bad();
  }
  if (s == ".sync") {
    in.flags |= IF_SYNC;
    return;
  }
  if (s == ".aligned") {
    in.flags |= IF_ALIGNED;
    return;
  }
  if (op == Op::shf) {
    if (s == ".l") {
      in.flags |= IF_LEFT;
      return;
    }
    if (s == ".r") {
      in.flags |= IF_RIGHT;
      return;
    }
  }
  if (op == Op::shf || op == Op::bmsk) {
    if (s == ".wrap") {
      in.flags |= IF_WRAP;
      return;
    }
    if (s == ".clamp") {
      in.flags |= IF_CLAMP;
      return;
    }
  }
  if (op == Op::bfind && s == ".shiftamt") {
    in.flags |= IF_SHIFTAMT;
    return;
  }
  if (op == Op::min || op == Op::max) {
    if (s == ".NaN") {
      in.flags |= IF_NAN;
      return;
    }
    if (s == ".xorsign") {
      in.flags |= IF_XORSIGN;
      return;
    }
    if (s == ".abs") {
      in.flags |= IF_ABS;
      return;
    }
    if (s == ".relu") {
      in.flags |= IF_RELU;
      return;
    }
  }
  if ((op == Op::fma || op == Op::cvt) && s == ".relu") {
    in.flags |= IF_RELU;
    return;
  }
  if (op == Op::fma && s == ".oob") {
    in.flags |= IF_OOB;
    return;
  }
  if (op == Op::match && s == ".sync") {
    in.flags |= IF_SYNC;
    return;
  }
  if (op == Op::nanosleep || op == Op::pmevent) {
    if (s == ".mask") return;
  }
  if (op == Op::brx && s == ".idx") return;
  if ((op == Op::div || op == Op::rem) && (s == ".full")) {
    in.flags |= IF_FULL;
    return;
  }
  if (op == Op::mov && s == ".u32") return;
  if (auto c = cmp_of(s); c && op == Op::slct) bad();
  err(t, fmt::format("unknown modifier '{}' for '{}'", s, op_name(op)));
}

Operand Parser::parse_address(Instruction& in) {
  // '[' already consumed.
  Operand o;
  o.kind = OperandKind::addr;
  const Token& t = peek();
  if (t.kind == Tok::ident) {
    take();
    if (auto le = lookup_local(t.text); le && le->kind == ScopeEntry::reg) {
      const Register& r = fn_->regs[le->index];
      if (r.is_pred()) err(t, "a predicate cannot be used as an address");
      o.base = OperandKind::reg;
      o.id = le->index;
    } else if (int32_t vi = lookup_var(t.text); vi >= 0) {
      o.base = OperandKind::sym;
      o.id = uint32_t(vi);
    } else if (int32_t fi = lookup_func(t.text); fi >= 0) {
      o.base = OperandKind::func;
      o.id = uint32_t(fi);
    } else {
      err(t, fmt::format("undeclared identifier '{}' in address", t.text));
    }
  } else if (t.kind == Tok::integer) {
    take();
    o.base = OperandKind::none;
    o.imm = int64_t(t.ival);
  } else {
    err(t, fmt::format("expected a register, variable or address in '[...]', got {}", tokstr(t)));
  }
  if (at_punct('+') || at_punct('-')) {
    const bool neg = take().is('-');
    bool neg2 = accept('-');
    const Token& n = peek();
    if (n.kind != Tok::integer)
      err(n, fmt::format("expected an integer offset, got {}", tokstr(n)));
    take();
    const uint64_t v = neg != neg2 ? uint64_t(0) - n.ival : n.ival;
    o.imm = int64_t(uint64_t(o.imm) + v);  // wraps like address arithmetic, never UB
  }
  if (at_punct(',')) {
    // texture / surface coordinate form: [tex, {coords}] or [tex, sampler, {coords}]
    take();
    Operand a = o;
    in.ops.push_back(a);
    if (peek().kind == Tok::ident) {
      // sampler operand (independent mode)
      Operand s = parse_simple_operand(in, false);
      in.ops.push_back(s);
      expect(',', "after sampler");
    }
    Operand coords = parse_operand(in, false);
    expect(']', "to close the texture operand");
    return coords;
  }
  expect(']', "to close the address");
  return o;
}

Operand Parser::parse_simple_operand(Instruction& in, bool allow_label) {
  const Token& t = peek();
  Operand o;
  if (t.kind == Tok::integer || t.kind == Tok::f32bits || t.kind == Tok::f64bits ||
      t.kind == Tok::decfloat) {
    take();
    o.kind = OperandKind::imm;
    o.imm = t.kind == Tok::decfloat ? int64_t(bitcast<uint64_t>(t.fval)) : int64_t(t.ival);
    o.comp = uint8_t(t.kind);  // remember literal kind for normalize_imm
    return o;
  }
  if (t.is('-')) {
    take();
    const Token& n = peek();
    if (n.kind == Tok::integer) {
      take();
      o.kind = OperandKind::imm;
      o.imm = int64_t(uint64_t(0) - n.ival);
      o.comp = uint8_t(Tok::integer);
      return o;
    }
    if (n.kind == Tok::decfloat) {
      take();
      o.kind = OperandKind::imm;
      o.imm = int64_t(bitcast<uint64_t>(-n.fval));
      o.comp = uint8_t(Tok::decfloat);
      return o;
    }
    if (n.kind == Tok::f32bits || n.kind == Tok::f64bits) {
      take();
      o.kind = OperandKind::imm;
      o.imm = int64_t(n.ival ^ (n.kind == Tok::f32bits ? 0x80000000ull : 0x8000000000000000ull));
      o.comp = uint8_t(n.kind);
      return o;
    }
    err(n, fmt::format("expected a number after '-', got {}", tokstr(n)));
  }
  if (t.is('!')) {
    take();
    Operand p = parse_simple_operand(in, false);
    if (p.kind != OperandKind::pred) err(t, "'!' applies only to predicate registers");
    p.negate = true;
    return p;
  }
  if (t.kind != Tok::ident) err(t, fmt::format("expected an operand, got {}", tokstr(t)));
  take();
  if (t.text == "_") {
    o.kind = OperandKind::sink;
    return o;
  }
  if (t.text == "WARP_SZ" && !lookup_local(t.text) && lookup_var(t.text) < 0) {
    // Predefined PTX constant (warp size), used by inline asm: mov.u32 %r, WARP_SZ;
    o.kind = OperandKind::imm;
    o.imm = 32;
    o.comp = uint8_t(Tok::integer);
    return o;
  }
  if (t.text[0] == '%') {
    if (auto le = lookup_local(t.text); le && le->kind == ScopeEntry::reg) {
      const Register& r = fn_->regs[le->index];
      o.kind = r.is_pred() ? OperandKind::pred : OperandKind::reg;
      o.id = le->index;
      // Optional vector component on vector registers (unsupported; rejected at decl).
      return o;
    }
    if (auto sr = sreg_of(t.text)) {
      o.kind = OperandKind::sreg;
      o.sreg = sr->first;
      if (sr->first == Sreg::envreg) {
        auto num = t.text.substr(7);
        if (num.empty() || num.size() > 2 ||
            !std::all_of(num.begin(), num.end(), [](char c) { return c >= '0' && c <= '9'; }))
          err(t, fmt::format("unknown special register '{}'", t.text));
        o.comp = uint8_t(std::stoi(std::string(num)));
        if (o.comp > 31) err(t, "%envreg index must be 0..31");
      } else if (sr->first == Sreg::pm) {
        o.comp = 0;
      } else if (sr->second) {
        const Token& c = peek();
        if (c.kind != Tok::dot || (c.text != ".x" && c.text != ".y" && c.text != ".z"))
          err(t, fmt::format("special register '{}' needs a component .x, .y or .z", t.text));
        take();
        o.comp = uint8_t(c.text[1] - 'x');
      }
      return o;
    }
    err(t, fmt::format("undeclared register '{}'", t.text));
  }
  if (auto le = lookup_local(t.text); le) {
    if (le->kind == ScopeEntry::reg) {
      const Register& r = fn_->regs[le->index];
      o.kind = r.is_pred() ? OperandKind::pred : OperandKind::reg;
      o.id = le->index;
      return o;
    }
    o.kind = OperandKind::sym;
    o.id = le->index;
  } else if (int32_t vi = lookup_var(t.text); vi >= 0) {
    o.kind = OperandKind::sym;
    o.id = uint32_t(vi);
  } else if (int32_t fi = lookup_func(t.text); fi >= 0) {
    o.kind = OperandKind::func;
    o.id = uint32_t(fi);
    return o;
  } else if (allow_label) {
    o.kind = OperandKind::label;
    o.id = label_ref(t.text, t);
    return o;
  } else {
    err(t, fmt::format("undeclared identifier '{}'", t.text));
  }
  // symbol + offset
  if (at_punct('+')) {
    take();
    o.imm = int64_t(expect_int("symbol offset"));
  }
  return o;
}

Operand Parser::parse_operand(Instruction& in, bool allow_label) {
  if (accept('[')) return parse_address(in);
  if (at_punct('{')) {
    take();
    Operand v;
    v.kind = OperandKind::vec;
    v.id = uint32_t(in.elems.size());
    std::vector<Operand> el;
    do {
      el.push_back(parse_simple_operand(in, false));
    } while (accept(','));
    expect('}', "to close the vector operand");
    // wgmma's accumulator fragments hold up to 128 registers (m64n256k16 with f32).
    if (el.size() > (in.op == Op::wgmma ? 128u : 8u))
      err(peek(),
          fmt::format("vector operand with more than {} elements", in.op == Op::wgmma ? 128 : 8));
    v.count = uint8_t(el.size());
    for (auto& e : el) in.elems.push_back(e);
    return v;
  }
  return parse_simple_operand(in, allow_label);
}

void Parser::parse_call(Instruction& in) {
  auto ci = std::make_unique<CallInfo>();
  auto param_list = [&](std::vector<Operand>& out) {
    expect('(', "to open the call parameter list");
    if (accept(')')) return;
    do {
      Operand o = parse_simple_operand(in, false);
      out.push_back(o);
    } while (accept(','));
    expect(')', "to close the call parameter list");
  };
  if (at_punct('(')) {
    param_list(ci->rets);
    expect(',', "after the call's return list");
  }
  const Token& tt = peek();
  if (tt.kind != Tok::ident) err(tt, fmt::format("expected a call target, got {}", tokstr(tt)));
  ci->target = parse_simple_operand(in, false);
  if (ci->target.kind != OperandKind::func && ci->target.kind != OperandKind::reg)
    err(tt, "call target must be a function or a register");
  if (accept(',')) {
    if (at_punct('(')) {
      param_list(ci->args);
      if (accept(',')) {
        const Token& pt = peek();
        std::string_view pn = expect_ident("a call prototype or target list");
        auto it = labels_proto_.find(std::string(pn));
        if (it == labels_proto_.end()) err(pt, fmt::format("unknown call prototype '{}'", pn));
        ci->prototype = int32_t(it->second);
      }
    } else {
      const Token& pt = peek();
      std::string_view pn = expect_ident("a call prototype");
      auto it = labels_proto_.find(std::string(pn));
      if (it == labels_proto_.end()) err(pt, fmt::format("unknown call prototype '{}'", pn));
      ci->prototype = int32_t(it->second);
    }
  }
  if (ci->target.kind == OperandKind::reg && ci->prototype < 0)
    err(tt, "an indirect call needs a .callprototype");
  for (const Operand& o : ci->rets)
    if (o.kind != OperandKind::sym && o.kind != OperandKind::reg)
      err(tt, "call return values must be .param variables or registers");
  if (ci->target.kind == OperandKind::func) {
    const Function& callee = m_.funcs[ci->target.id];
    if (callee.is_entry) err(tt, fmt::format("cannot call kernel '{}'", callee.name));
    if (ci->args.size() != callee.params.size() && !callee.params.empty())
      err(tt, fmt::format("call to '{}' passes {} arguments, it takes {}", callee.name,
                          ci->args.size(), callee.params.size()));
    if (ci->rets.size() > callee.rets.size())
      err(tt, fmt::format("call to '{}' expects {} return values, it returns {}", callee.name,
                          ci->rets.size(), callee.rets.size()));
  }
  in.call = std::move(ci);
}

void Parser::parse_instruction() {
  Instruction in;
  const Token& first = peek();
  in.line = first.line;
  in.col = first.col;
  if (accept('@')) {
    bool neg = accept('!');
    const Token& pt = peek();
    if (pt.kind != Tok::ident) err(pt, "expected a predicate register after '@'");
    take();
    auto le = lookup_local(pt.text);
    if (!le || le->kind != ScopeEntry::reg)
      err(pt, fmt::format("undeclared predicate '{}'", pt.text));
    if (!fn_->regs[le->index].is_pred())
      err(pt, fmt::format("'{}' is not a predicate register", pt.text));
    in.guard = int32_t(le->index);
    in.guard_neg = neg;
  }
  const Token& op_tok = peek();
  if (op_tok.kind != Tok::ident)
    err(op_tok, fmt::format("expected an opcode, got {}", tokstr(op_tok)));
  take();
  auto op = op_from_mnemonic(op_tok.text);
  if (!op) err(op_tok, fmt::format("unknown opcode '{}'", op_tok.text));
  in.op = *op;
  // vote.ballot.sync legacy spelling and all other modifiers
  while (peek().kind == Tok::dot && peek().line == op_tok.line) apply_modifier(in, take());

  std::vector<const Token*> op_toks;
  if (in.op == Op::call) {
    parse_call(in);
  } else if (!at_punct(';')) {
    const bool branch = in.op == Op::bra || in.op == Op::brx;
    do {
      op_toks.push_back(&peek());
      in.ops.push_back(parse_operand(in, branch));
      if (at_punct('|')) {
        take();
        in.flags |= IF_PIPE2;
        op_toks.push_back(&peek());
        in.ops.push_back(parse_operand(in, false));
      }
    } while (accept(','));
  }
  expect(';', fmt::format("after '{}' instruction", op_tok.text).c_str());
  // source text of the line
  if (in.line >= 1 && in.line <= line_starts_.size()) {
    // The line ends where the next one starts (O(1): a line holding many instructions must not
    // be rescanned for each of them).
    size_t b = line_starts_[in.line - 1];
    size_t e = in.line < line_starts_.size() ? line_starts_[in.line] - 1 : src_->size();
    while (b < e && ((*src_)[b] == ' ' || (*src_)[b] == '\t')) ++b;
    in.text = std::string_view(*src_).substr(b, e - b);
  }
  validate_instruction(in, op_tok, op_toks);
  check_operands(in, op_toks);
  in.exec = classify(in);
  in.src_file = loc_file_;
  in.src_line = loc_line_;
  in.src_col = loc_col_;
  fn_->insts.push_back(std::move(in));
}

void Parser::validate_instruction(Instruction& in, const Token& op_tok,
                                  const std::vector<const Token*>& op_toks) {
  auto need_type = [&]() {
    if (in.type == Type::none)
      err(op_tok, fmt::format("'{}' needs a type modifier", op_name(in.op)));
  };
  const size_t n = in.ops.size();
  auto need_ops = [&](size_t lo, size_t hi) {
    if (n < lo || n > hi) {
      if (lo == hi)
        err(op_tok, fmt::format("'{}' takes {} operands, got {}", full_mnemonic(in), lo, n));
      err(op_tok,
          fmt::format("'{}' takes {} to {} operands, got {}", full_mnemonic(in), lo, hi, n));
    }
  };
  const bool pipe = in.has(IF_PIPE2);
  switch (in.op) {
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::div:
    case Op::rem:
    case Op::min:
    case Op::max:
    case Op::and_:
    case Op::or_:
    case Op::xor_:
    case Op::shl:
    case Op::shr:
    case Op::copysign:
    case Op::addc:
    case Op::subc:
    case Op::mul24:
      need_type();
      need_ops(3, 3);
      in.ndst = 1;
      if (in.op == Op::min || in.op == Op::max) {
        if (n == 4) in.ndst = 1;
      }
      break;
    case Op::mad:
    case Op::fma:
    case Op::madc:
    case Op::mad24:
    case Op::sad:
    case Op::bfe:
    case Op::shf:
    case Op::prmt:
    case Op::dp4a:
    case Op::dp2a:
    case Op::selp:
    case Op::slct:
      need_type();
      need_ops(4, 4);
      in.ndst = 1;
      break;
    case Op::bfi:
    case Op::lop3:
      need_type();
      need_ops(5, 5);
      in.ndst = 1;
      break;
    case Op::abs:
    case Op::neg:
    case Op::not_:
    case Op::cnot:
    case Op::popc:
    case Op::clz:
    case Op::brev:
    case Op::bfind:
    case Op::sqrt:
    case Op::rsqrt:
    case Op::rcp:
    case Op::sin:
    case Op::cos:
    case Op::lg2:
    case Op::ex2:
    case Op::tanh:
    case Op::mov:
    case Op::cvta:
    case Op::testp:
      need_type();
      need_ops(2, 2);
      in.ndst = 1;
      break;
    case Op::cvt: {
      // Packed destinations take two sources: cvt.rn.f16x2.f32 d, a, b.
      const bool packed = in.type == Type::f16x2 || in.type == Type::bf16x2 ||
                          in.type == Type::e4m3x2 || in.type == Type::e5m2x2;
      need_type();
      need_ops(2, packed ? 3 : 2);
      in.ndst = 1;
      break;
    }
    case Op::bmsk:
      need_type();
      need_ops(3, 3);
      in.ndst = 1;
      break;
    case Op::setp:
      need_type();
      if (in.cmp == Cmp::none) err(op_tok, "'setp' needs a comparison operator (.eq, .lt, ...)");
      in.ndst = pipe ? 2 : 1;
      if (n != in.ndst + 2u + (in.boolop != BoolOp::none ? 1u : 0u))
        err(op_tok, fmt::format("'{}' has the wrong number of operands", full_mnemonic(in)));
      break;
    case Op::set:
      need_type();
      if (in.cmp == Cmp::none) err(op_tok, "'set' needs a comparison operator");
      if (in.type2 == Type::none) err(op_tok, "'set' needs a destination and a source type");
      in.ndst = 1;
      if (n != 3u + (in.boolop != BoolOp::none ? 1u : 0u))
        err(op_tok, fmt::format("'{}' has the wrong number of operands", full_mnemonic(in)));
      break;
    case Op::ld:
    case Op::ldu:
      need_type();
      need_ops(2, 3);
      in.ndst = 1;
      if (in.ops[1].kind != OperandKind::addr) err(op_tok, "ld needs an address operand [..]");
      break;
    case Op::st:
      need_type();
      need_ops(2, 3);
      in.ndst = 0;
      if (in.ops[0].kind != OperandKind::addr) err(op_tok, "st needs an address operand [..]");
      break;
    case Op::atom:
      need_type();
      if (in.atom_op() == AtomOp::none) err(op_tok, "'atom' needs an operation (.add, .cas, ...)");
      need_ops(in.atom_op() == AtomOp::cas ? 4 : 3, in.atom_op() == AtomOp::cas ? 5 : 4);
      in.ndst = 1;
      if (in.ops[1].kind != OperandKind::addr) err(op_tok, "atom needs an address operand [..]");
      break;
    case Op::red:
      need_type();
      if (in.atom_op() == AtomOp::none) err(op_tok, "'red' needs an operation (.add, ...)");
      need_ops(2, 3);
      in.ndst = 0;
      if (in.ops[0].kind != OperandKind::addr) err(op_tok, "red needs an address operand [..]");
      break;
    case Op::bra:
      need_ops(1, 1);
      if (in.ops[0].kind != OperandKind::label) err(op_tok, "bra needs a label");
      break;
    case Op::brx:
      need_ops(2, 2);
      break;
    case Op::ret:
    case Op::exit:
    case Op::trap:
    case Op::brkpt:
    case Op::relssp:
      need_ops(0, 0);
      break;
    case Op::bar:
    case Op::barrier:
      if (in.has(IF_WARP)) {
        need_ops(1, 1);
      } else if (in.scope == Scope::cluster) {
        // barrier.cluster.arrive{.release,.relaxed}{.aligned} / barrier.cluster.wait{.acquire}
        need_ops(0, 0);
        if (in.has(IF_SYNC) == in.has(IF_ARRIVE) || in.has(IF_RED))
          err(op_tok, "barrier.cluster needs exactly one of .arrive and .wait");
      } else if (in.has(IF_RED)) {
        need_type();
        in.ndst = 1;
        need_ops(3, 4);
      } else {
        need_ops(1, 2);
        if (!in.has(IF_SYNC) && !in.has(IF_ARRIVE)) in.flags |= IF_SYNC;  // `bar 0` = bar.sync
      }
      break;
    case Op::membar:
    case Op::fence:
      need_ops(0, 0);
      break;
    case Op::shfl:
      need_type();
      if (in.shfl_mode() == ShflMode::none)
        err(op_tok, "'shfl' needs a mode (.up/.down/.bfly/.idx)");
      in.ndst = pipe ? 2 : 1;
      if (n != in.ndst + 3u + (in.has(IF_SYNC) ? 1u : 0u))
        err(op_tok, fmt::format("'{}' has the wrong number of operands", full_mnemonic(in)));
      break;
    case Op::vote:
      if (in.vote_mode() == VoteMode::none)
        err(op_tok, "'vote' needs a mode (.all/.any/.uni/.ballot)");
      in.ndst = 1;
      need_ops(in.has(IF_SYNC) ? 3 : 2, in.has(IF_SYNC) ? 3 : 2);
      if (in.type == Type::none)
        in.type = in.vote_mode() == VoteMode::ballot ? Type::b32 : Type::pred;
      break;
    case Op::match:
      need_type();
      in.ndst = pipe ? 2 : 1;
      need_ops(in.ndst + 2, in.ndst + 2);
      break;
    case Op::redux:
      need_type();
      in.ndst = 1;
      need_ops(3, 3);
      break;
    case Op::activemask:
      need_type();
      in.ndst = 1;
      need_ops(1, 1);
      break;
    case Op::isspacep:
      if (in.space == Space::generic) err(op_tok, "'isspacep' needs a state space");
      in.ndst = 1;
      need_ops(2, 2);
      in.type = Type::pred;
      break;
    case Op::tex:
    case Op::tld4:
    case Op::suld:
      in.ndst = 1;
      if (n < 3)
        err(op_tok,
            fmt::format("'{}' needs a destination and [texture, coordinates]", op_name(in.op)));
      break;
    case Op::sust:
      in.ndst = 0;
      break;
    case Op::txq:
    case Op::suq:
      in.ndst = 1;
      break;
    case Op::nanosleep:
    case Op::pmevent:
      need_ops(1, 1);
      break;
    case Op::vabsdiff:
    case Op::vabsdiff2:
    case Op::vabsdiff4:
    case Op::vadd:
      in.ndst = 1;
      need_ops(3, 4);
      break;
    case Op::getctarank:
      in.ndst = 1;
      need_ops(2, 2);
      break;
    case Op::mapa:
      in.ndst = 1;
      need_ops(3, 3);
      break;
    case Op::fns:
      in.ndst = 1;
      need_ops(4, 4);
      break;
    case Op::elect:
      in.ndst = pipe ? 2 : 1;
      break;
    case Op::ldmatrix:
    case Op::mma:
      in.ndst = 1;
      break;
    case Op::mbarrier:  // state / waitComplete / count first, unless the address comes first
      in.ndst = !in.ops.empty() && in.ops[0].kind != OperandKind::addr ? 1 : 0;
      break;
    case Op::wgmma:  // wgmma.mma_async writes the accumulator fragment; fence/commit/wait none
      in.ndst = !in.extra.empty() && in.extra[0] == ".mma_async" ? 1 : 0;
      break;
    case Op::wmma:  // wmma.load / wmma.mma write a fragment (a vector); wmma.store writes none
      in.ndst = !in.extra.empty() && in.extra[0] == ".store" ? 0 : 1;
      break;
    default:
      in.ndst = (in.info().flags & OPF_DST) ? 1 : 0;
      break;
  }
  // Destinations must be registers (or a vector of registers, or a sink).
  for (unsigned i = 0; i < in.ndst && i < in.ops.size(); ++i) {
    const Operand& d = in.ops[i];
    if (d.kind == OperandKind::reg || d.kind == OperandKind::pred || d.kind == OperandKind::sink)
      continue;
    const Token& at = i < op_toks.size() ? *op_toks[i] : op_tok;
    if (d.kind == OperandKind::imm) err(at, "an immediate cannot be a destination");
    if (d.kind == OperandKind::vec) {
      for (unsigned k = 0; k < d.count; ++k) {
        const Operand& e = in.elem(d, k);
        if (e.kind != OperandKind::reg && e.kind != OperandKind::sink &&
            e.kind != OperandKind::pred)
          err(at, fmt::format("destination of '{}' must be registers", op_name(in.op)));
      }
      continue;
    }
    err(at,
        fmt::format("destination operand {} of '{}' must be a register", i + 1, op_name(in.op)));
  }
  if (in.op == Op::ld || in.op == Op::st || in.op == Op::ldu) {
    if (in.vec > 1) {
      const Operand& v = in.op == Op::st ? in.ops[1] : in.ops[0];
      if (v.kind != OperandKind::vec || v.count != in.vec)
        err(op_tok, fmt::format("'{}' needs a {{...}} operand with {} elements", full_mnemonic(in),
                                in.vec));
    }
  }
}

void Parser::normalize_imm(Operand& o, Type expect, const Token& at) {
  if (o.kind != OperandKind::imm) return;
  const Tok lit = static_cast<Tok>(o.comp);
  o.comp = 0;
  if (expect == Type::none || expect == Type::pred) {
    if (lit == Tok::decfloat) err(at, "floating-point literal where an integer is expected");
    return;
  }
  if (type_kind(expect) == TypeKind::flt) {
    double d;
    if (lit == Tok::decfloat)
      d = bitcast<double>(uint64_t(o.imm));
    else if (lit == Tok::f32bits)
      d = double(bitcast<float>(uint32_t(o.imm)));
    else if (lit == Tok::f64bits)
      d = bitcast<double>(uint64_t(o.imm));
    else
      d = double(o.imm);
    if (expect == Type::f64) {
      o.imm = lit == Tok::f64bits ? o.imm : int64_t(bitcast<uint64_t>(d));
    } else if (expect == Type::f32 || expect == Type::tf32) {
      o.imm = lit == Tok::f32bits ? int64_t(uint32_t(o.imm)) : int64_t(bitcast<uint32_t>(float(d)));
    } else {
      // f16/bf16 forms: keep raw integer bits (PTX requires 0x/bit forms for these).
      if (lit == Tok::decfloat) err(at, "decimal literal not allowed for 16-bit float types");
    }
    return;
  }
  if (lit == Tok::decfloat) err(at, "floating-point literal where an integer is expected");
  // 0f/0d bit patterns used with bit-size types keep their raw bits.
}

void Parser::check_reg(const Instruction& in, const Operand& o, Type expect, bool allow_wider,
                       const Token& at, bool is_dst) {
  if (o.kind == OperandKind::vec) {
    for (unsigned k = 0; k < o.count; ++k)
      check_reg(in, in.elem(o, k), expect, allow_wider, at, is_dst);
    return;
  }
  if (expect == Type::none) return;
  if (o.kind == OperandKind::pred) {
    if (expect != Type::pred)
      err(at, fmt::format("predicate '{}' used where a .{} value is expected", fn_->regs[o.id].name,
                          type_name(expect)));
    return;
  }
  if (o.kind == OperandKind::reg) {
    const Register& r = fn_->regs[o.id];
    if (expect == Type::pred) err(at, fmt::format("'{}' is not a predicate register", r.name));
    const uint32_t rs = type_size(r.type), es = type_size(expect);
    if (rs == es) return;
    if (allow_wider && rs > es) return;
    // PTX allows a wider register for narrower integer operands in many ALU instructions
    // only for ld/st/cvt; everything else must match in size.
    err(at, fmt::format("type mismatch: register '{}' is .{} but '{}' expects a {}-bit operand",
                        r.name, type_name(r.type), full_mnemonic(in), es * 8));
  }
  if (is_dst && o.kind != OperandKind::sink && o.kind != OperandKind::reg &&
      o.kind != OperandKind::pred)
    err(at, "destination must be a register");
}

void Parser::check_operands(Instruction& in, const std::vector<const Token*>& toks) {
  const Type T = in.type;
  auto tokat = [&](size_t i) -> const Token& { return i < toks.size() ? *toks[i] : peek(); };
  auto wide = [](Type t) {
    switch (t) {
      case Type::u16:
        return Type::u32;
      case Type::s16:
        return Type::s32;
      case Type::u32:
        return Type::u64;
      case Type::s32:
        return Type::s64;
      case Type::u64:
      case Type::s64:
        return Type::b128;
      default:
        return t;
    }
  };
  // expected type per operand position (Type::none = don't check), and whether wider
  // registers are accepted
  std::vector<std::pair<Type, bool>> ex(in.ops.size(), {Type::none, false});
  auto all = [&](Type t, bool w = false) {
    for (auto& e : ex) e = {t, w};
  };
  switch (in.op) {
    case Op::add:
    case Op::sub:
    case Op::min:
    case Op::max:
    case Op::div:
    case Op::rem:
    case Op::and_:
    case Op::or_:
    case Op::xor_:
    case Op::not_:
    case Op::cnot:
    case Op::abs:
    case Op::neg:
    case Op::copysign:
    case Op::addc:
    case Op::subc:
    case Op::sqrt:
    case Op::rsqrt:
    case Op::rcp:
    case Op::sin:
    case Op::cos:
    case Op::lg2:
    case Op::ex2:
    case Op::tanh:
    case Op::fma:
    case Op::brev:
    case Op::mov:
    case Op::cvta:
      all(T);
      if (in.op == Op::mov && !in.ops.empty() && in.ops[0].kind == OperandKind::vec) {
        const uint32_t n = in.ops[0].count;
        const uint32_t es = type_size(T) / n;
        ex[0] = {es == 1 ? Type::b8 : es == 2 ? Type::b16 : es == 4 ? Type::b32 : Type::b64, false};
      }
      if (in.op == Op::mov && in.ops.size() == 2 && in.ops[1].kind == OperandKind::vec) {
        const uint32_t n = in.ops[1].count;
        const uint32_t es = type_size(T) / n;
        ex[1] = {es == 1 ? Type::b8 : es == 2 ? Type::b16 : es == 4 ? Type::b32 : Type::b64, false};
      }
      break;
    case Op::mul:
    case Op::mad:
    case Op::mul24:
    case Op::mad24:
    case Op::madc:
      all(T);
      if (in.mul_mode() == MulMode::wide) {
        ex[0] = {wide(T), false};
        if (ex.size() > 3) ex[3] = {wide(T), false};
      }
      break;
    case Op::shl:
    case Op::shr:
      all(T);
      if (ex.size() > 2) ex[2] = {Type::u32, false};
      break;
    case Op::bfe:
      all(T);
      ex[2] = ex[3] = {Type::u32, false};
      break;
    case Op::bfi:
      all(T);
      ex[3] = ex[4] = {Type::u32, false};
      break;
    case Op::popc:
    case Op::clz:
    case Op::bfind:
      all(T);
      ex[0] = {Type::u32, false};
      break;
    case Op::prmt:
    case Op::shf:
    case Op::lop3:
    case Op::bmsk:
      all(Type::b32);
      break;
    case Op::setp:
      all(T);
      for (unsigned i = 0; i < in.ndst; ++i) ex[i] = {Type::pred, false};
      if (in.boolop != BoolOp::none) ex.back() = {Type::pred, false};
      break;
    case Op::set:
      all(in.type2);
      ex[0] = {T, false};
      if (in.boolop != BoolOp::none) ex.back() = {Type::pred, false};
      break;
    case Op::selp:
      all(T);
      ex[3] = {Type::pred, false};
      break;
    case Op::slct:
      all(T);
      ex[3] = {in.type2, false};
      break;
    case Op::cvt:
      ex[0] = {T, true};
      ex[1] = {in.type2, true};
      if (in.type == Type::f16x2 || in.type == Type::bf16x2 || in.type == Type::e4m3x2 ||
          in.type == Type::e5m2x2) {
        for (size_t i = 1; i < ex.size(); ++i) ex[i] = {in.type2, true};
      }
      break;
    case Op::ld:
    case Op::ldu:
      ex[0] = {T == Type::b128 ? Type::none : T, true};
      break;
    case Op::st:
      ex[1] = {T == Type::b128 ? Type::none : T, true};
      break;
    case Op::atom:
      ex[0] = {T, false};
      for (size_t i = 2; i < ex.size(); ++i) ex[i] = {T, false};
      if (in.has(IF_OOB) && ex.size() > 0) ex.back() = {Type::none, false};
      if (in.vec > 1) all(Type::none);
      break;
    case Op::red:
      for (size_t i = 1; i < ex.size(); ++i) ex[i] = {T, false};
      if (in.vec > 1) all(Type::none);
      break;
    case Op::shfl:
      all(Type::b32);
      if (in.ndst == 2) ex[1] = {Type::pred, false};
      break;
    case Op::vote:
      if (in.vote_mode() == VoteMode::ballot)
        ex[0] = {Type::b32, false};
      else
        ex[0] = {Type::pred, false};
      ex[1] = {Type::pred, false};
      if (ex.size() > 2) ex[2] = {Type::b32, false};
      break;
    case Op::match:
      all(T);
      ex[0] = {Type::b32, false};
      if (in.ndst == 2) ex[1] = {Type::pred, false};
      ex.back() = {Type::b32, false};
      break;
    case Op::redux:
      all(T);
      ex.back() = {Type::b32, false};
      break;
    case Op::activemask:
      ex[0] = {Type::b32, false};
      break;
    case Op::testp:
      all(T);
      ex[0] = {Type::pred, false};
      break;
    case Op::isspacep:
      ex[0] = {Type::pred, false};
      break;
    case Op::mapa:  // mapa.type d, a, rank: the rank is a 32-bit integer
      all(T);
      ex.back() = {Type::u32, false};
      break;
    case Op::getctarank:  // getctarank.type d, a: the rank is a 32-bit integer
      all(T);
      ex[0] = {Type::u32, false};
      break;
    case Op::bar:
    case Op::barrier:
      if (in.has(IF_RED)) {
        ex[0] = {in.boolop == BoolOp::popc ? Type::u32 : Type::pred, false};
        ex.back() = {Type::pred, false};
      } else {
        all(Type::b32);
      }
      break;
    case Op::nanosleep:
      all(Type::u32);
      break;
    default:
      break;
  }
  for (size_t i = 0; i < in.ops.size(); ++i) {
    Operand& o = in.ops[i];
    const Token& at = tokat(i);
    if (o.kind == OperandKind::imm) {
      if (i < in.ndst) err(at, "an immediate cannot be a destination");
      normalize_imm(o, ex[i].first, at);
    } else if (o.kind == OperandKind::vec) {
      for (unsigned k = 0; k < o.count; ++k) {
        Operand& e = in.elems[o.id + k];
        if (e.kind == OperandKind::imm) {
          if (i < in.ndst) err(at, "an immediate cannot be a destination");
          normalize_imm(e, ex[i].first, at);
        }
      }
    }
    check_reg(in, o, ex[i].first, ex[i].second, at, i < in.ndst);
  }
  if (in.call) {
    for (auto& o : in.call->args)
      if (o.kind == OperandKind::imm) normalize_imm(o, Type::none, peek());
  }
}

}  // namespace

// ---- public API ------------------------------------------------------------------------------

Module parse_module(std::string text, std::string file) {
  Module m;
  m.file = file;
  add_translation_unit(m, std::move(text), std::move(file));
  finalize_module(m);
  return m;
}

void add_translation_unit(Module& m, std::string text, std::string file) {
  if (m.file.empty()) m.file = file;
  Parser p(m, std::move(text), std::move(file), m.num_units++);
  p.run();
}

bool is_builtin_function(std::string_view name) {
  static const std::unordered_set<std::string_view> b = {
      "vprintf",
      "malloc",
      "free",
      "__assertfail",
      "__nv_aligned_device_malloc",
      "cudaGetParameterBufferV2",
      "cudaLaunchDeviceV2",
      "cudaGetParameterBuffer",
      "cudaLaunchDevice",
      "cudaDeviceSynchronize",
      "cudaGetDevice",
      "cudaDeviceGetAttribute",
      "cudaFuncGetAttributes",
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
      "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
      "cudaMalloc",
      "cudaFree",
      "__cudaCDP2DeviceSynchronize"};
  return b.count(name) > 0;
}

void finalize_module(Module& m) {
  for (const Function& f : m.funcs) {
    if (!f.defined) continue;
    for (const Instruction& in : f.insts) {
      if (!in.call || in.call->target.kind != OperandKind::func) continue;
      const Function& callee = m.funcs[in.call->target.id];
      if (!callee.defined && !is_builtin_function(callee.name))
        throw DiagError(SourceLoc{f.source_file, in.line, in.col},
                        fmt::format("call to '{}', which is declared but never defined (link "
                                    "all translation units, e.g. nvcc -rdc=true)",
                                    callee.name),
                        std::string(in.text));
    }
  }
}

}  // namespace simtlab::ptx
