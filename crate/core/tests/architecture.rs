//! The core's modules do not import each other in a circle.
//!
//! A module (a file, a directory module or an inline `mod`) depends on another when its code names
//! it: in a `use`, in a `crate::`, `super::` or `self::` path, or in such a path inside a macro.
//! A name re-exported or imported by a module is followed to where it is defined. Each dependency
//! is counted between the two siblings that contain its ends (`agent::record` naming
//! `dom_map::PageMap` is `agent` -> `dom_map` among the top-level modules; `agent::record` naming
//! `agent::replay` is `record` -> `replay` inside `agent`), and no siblings may reach each other.
//! Test code (`#[cfg(test)]`) is left out: tests may use whatever they check.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

type ModPath = Vec<String>;

#[test]
fn no_modules_import_each_other_in_a_circle() {
    let core = Core::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let circles = core.circles();
    assert!(circles.is_empty(), "modules that import each other in a circle:\n{}", circles.join("\n"));
}

/// Each of the check's own parts is exercised on a small crate, so that it can fail.
#[test]
fn a_circle_is_found_through_use_paths_macros_and_re_exports() {
    let dir = std::env::temp_dir().join(format!("architecture-check-{}", std::process::id()));
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod a; pub mod b; pub mod c; pub mod d;");
    write("a/mod.rs", "mod x; mod y; pub use x::X;\nfn f() -> crate::b::B { todo!() }");
    write("a/x.rs", "use super::y::Y; pub struct X;");
    write("a/y.rs", "pub struct Y; fn f() { let _ = format!(\"{}\", super::X); }");
    write("b.rs", "pub struct B; fn f() { let _ = json!({\"v\": crate::a::X}); }");
    write("c.rs", "pub struct C; #[cfg(test)] mod tests { use crate::d::D; }");
    write("d.rs", "pub struct D; use crate::c::C;");
    let circles = Core::read(&dir).circles();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(circles.len(), 2, "{circles:?}");
    assert!(circles[0].starts_with("in crate: a, b"), "{circles:?}");
    assert!(circles[1].starts_with("in crate::a: x, y"), "{circles:?}");
}

/// What the sources say: every module, every name a module brings in, and every path it names.
#[derive(Default)]
struct Core {
    src: PathBuf,
    modules: BTreeSet<ModPath>,
    /// A name a module defines by `use` (re-exported or not), and the path it stands for.
    aliases: BTreeMap<(ModPath, String), Reference>,
    references: Vec<Reference>,
}

/// A path named in a module's code, as written.
#[derive(Clone)]
struct Reference {
    module: ModPath,
    path: Vec<String>,
    file: PathBuf,
}

impl Core {
    fn read(src: &Path) -> Core {
        let mut core = Core { src: src.to_path_buf(), ..Core::default() };
        core.modules.insert(Vec::new());
        core.read_file(&src.join("lib.rs"), Vec::new());
        core
    }

    /// Reads a module's file and, through its `mod name;` declarations, the files of its children.
    fn read_file(&mut self, file: &Path, module: ModPath) {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let syntax = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut reader = FileReader { core: self, file: file.to_path_buf(), module, children: Vec::new() };
        reader.visit_file(&syntax);
        for (child, dir) in std::mem::take(&mut reader.children) {
            let name = child.last().unwrap();
            let (flat, nested) = (dir.join(format!("{name}.rs")), dir.join(name).join("mod.rs"));
            let child_file = if flat.exists() { flat } else { nested };
            self.read_file(&child_file, child.clone());
        }
    }

    /// The module a path leads to, following imports and re-exports to where the name is defined.
    fn resolve(&self, reference: &Reference) -> Option<ModPath> {
        let (mut module, mut path) = (reference.module.clone(), reference.path.clone());
        for _ in 0..16 {
            let (mut absolute, rest) = match path.first().map(String::as_str) {
                Some("crate") => (Vec::new(), &path[1..]),
                Some("self") => (module.clone(), &path[1..]),
                Some(first) if first == "super" || self.modules.contains(&child(&module, first)) => {
                    (module.clone(), &path[..])
                }
                _ => return None,
            };
            for segment in rest {
                match segment.as_str() {
                    "self" => {}
                    "super" => _ = absolute.pop()?,
                    _ => absolute.push(segment.clone()),
                }
            }
            let known = (0..=absolute.len()).rev().find(|&n| self.modules.contains(&absolute[..n])).unwrap();
            let defined_in = absolute[..known].to_vec();
            match absolute.get(known).and_then(|name| self.aliases.get(&(defined_in.clone(), name.clone()))) {
                Some(alias) => {
                    module = alias.module.clone();
                    path = alias.path.iter().chain(&absolute[known + 1..]).cloned().collect();
                }
                None => return Some(defined_in),
            }
        }
        None
    }

    /// Each group of sibling modules that reach each other, with the paths that make them.
    fn circles(&self) -> Vec<String> {
        // parent -> (from -> to -> one path that makes the dependency)
        let mut siblings: BTreeMap<ModPath, BTreeMap<String, BTreeMap<String, String>>> = BTreeMap::new();
        for reference in &self.references {
            let Some(target) = self.resolve(reference) else { continue };
            let from = &reference.module;
            let shared = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if shared == from.len() || shared == target.len() {
                continue; // a module naming its own ancestor or descendant
            }
            let file = reference.file.strip_prefix(&self.src).unwrap_or(&reference.file);
            let example = format!("{} names {}", file.display(), reference.path.join("::"));
            siblings
                .entry(from[..shared].to_vec())
                .or_default()
                .entry(from[shared].clone())
                .or_default()
                .entry(target[shared].clone())
                .or_insert(example);
        }
        let mut circles = Vec::new();
        for (parent, edges) in &siblings {
            let reach = |from: &String| reachable(edges, from);
            let mut seen = BTreeSet::new();
            for node in edges.keys() {
                let group: BTreeSet<String> =
                    reach(node).into_iter().filter(|other| reach(other).contains(node)).collect();
                if group.len() < 2 || !seen.insert(group.clone()) {
                    continue;
                }
                let names: Vec<&str> = group.iter().map(|name| name.as_str()).collect();
                let scope: Vec<&str> = ["crate"].into_iter().chain(parent.iter().map(String::as_str)).collect();
                let mut text = format!("in {}: {}", scope.join("::"), names.join(", "));
                for from in &group {
                    for (to, example) in edges[from].iter().filter(|(to, _)| group.contains(*to)) {
                        text.push_str(&format!("\n    {from} -> {to}: {example}"));
                    }
                }
                circles.push(text);
            }
        }
        circles
    }
}

/// Every module reachable from `from` by one or more dependencies.
fn reachable(edges: &BTreeMap<String, BTreeMap<String, String>>, from: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut next = vec![from.to_string()];
    while let Some(node) = next.pop() {
        for to in edges.get(&node).into_iter().flat_map(|targets| targets.keys()) {
            if found.insert(to.clone()) {
                next.push(to.clone());
            }
        }
    }
    found
}

fn child(module: &[String], name: &str) -> ModPath {
    module.iter().cloned().chain([name.to_string()]).collect()
}

/// Walks one file's syntax, leaving out test code.
struct FileReader<'a> {
    core: &'a mut Core,
    file: PathBuf,
    module: ModPath,
    /// The children declared as `mod name;`, with the directory their files are in.
    children: Vec<(ModPath, PathBuf)>,
}

impl FileReader<'_> {
    fn name(&mut self, path: Vec<String>) {
        let reference = Reference { module: self.module.clone(), path, file: self.file.clone() };
        self.core.references.push(reference);
    }

    /// Every `crate::`, `super::` and `self::` path among a macro's tokens.
    fn name_in_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            if let TokenTree::Group(group) = &tokens[i] {
                self.name_in_tokens(group.stream());
            }
            let starts_path = matches!(&tokens[i], TokenTree::Ident(id) if ["crate", "super", "self"].contains(&id.to_string().as_str()));
            if !starts_path {
                i += 1;
                continue;
            }
            let mut path = vec![tokens[i].to_string()];
            i += 1;
            while let [TokenTree::Punct(a), TokenTree::Punct(b), TokenTree::Ident(segment), ..] =
                &tokens[i.min(tokens.len())..]
            {
                if a.as_char() != ':' || b.as_char() != ':' {
                    break;
                }
                path.push(segment.to_string());
                i += 3;
            }
            if path.len() > 1 {
                self.name(path);
            }
        }
    }
}

/// Whether an item is compiled only for tests.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg") && matches!(&attr.meta, syn::Meta::List(list) if list.tokens.to_string() == "test")
    })
}

/// The paths a `use` tree brings in, each with the name it defines (`None` for a glob).
fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_paths(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) if name.ident == "self" => {
            out.push((prefix.clone(), prefix.last().cloned()));
        }
        syn::UseTree::Name(name) => out.push((child(prefix, &name.ident.to_string()), Some(name.ident.to_string()))),
        syn::UseTree::Rename(rename) => {
            out.push((child(prefix, &rename.ident.to_string()), Some(rename.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), None)),
        syn::UseTree::Group(group) => group.items.iter().for_each(|item| use_paths(item, prefix, out)),
    }
}

impl<'ast> Visit<'ast> for FileReader<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Macro(i) => &i.attrs,
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if !test_only(attrs) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if !test_only(&item.attrs) {
            syn::visit::visit_impl_item_fn(self, item);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let module = child(&self.module, &item.ident.to_string());
        self.core.modules.insert(module.clone());
        match &item.content {
            None => {
                let dir = self.file.parent().unwrap().to_path_buf();
                let is_dir_module = self.file.ends_with("lib.rs") || self.file.ends_with("mod.rs");
                let stem = self.file.file_stem().unwrap();
                self.children.push((module, if is_dir_module { dir } else { dir.join(stem) }));
            }
            Some((_, items)) => {
                let outer = std::mem::replace(&mut self.module, module);
                items.iter().for_each(|item| self.visit_item(item));
                self.module = outer;
            }
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        use_paths(&item.tree, &mut Vec::new(), &mut paths);
        for (path, defines) in paths {
            if let Some(name) = defines {
                let alias = Reference { module: self.module.clone(), path: path.clone(), file: self.file.clone() };
                self.core.aliases.insert((self.module.clone(), name), alias);
            }
            self.name(path);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 {
            self.name(path.segments.iter().map(|segment| segment.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.name_in_tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}
