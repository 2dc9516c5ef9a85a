//! The library form: a directory's shaders as one module, asked for by
//! index and by name, each the set `include_ncnn_shader!` builds alone.

use ncnn_glsl_runtime::{
    include_ncnn_library, include_ncnn_shader, LibraryError, Options, VariantSet,
};

include_ncnn_library!(mod lib = "tests/shaders/*.comp");
include_ncnn_shader!(mod alone = "tests/shaders/fp16_exp.comp");
include_ncnn_library!(mod names = "tests/shaders/library_names");

fn same(a: &VariantSet, b: &VariantSet) -> bool {
    a.variants().len() == b.variants().len()
        && a.axes.len() == b.axes.len()
        && a.variants().iter().zip(b.variants()).all(|(x, y)| {
            x.target == y.target && x.axes == y.axes && x.blob.spirv() == y.blob.spirv()
        })
}

#[test]
fn shaders_by_index_and_by_name() {
    use lib::{Shader, LIBRARY};
    assert_eq!(LIBRARY.names.len(), Shader::ALL.len());
    assert!(
        LIBRARY.names.windows(2).all(|w| w[0] < w[1]),
        "{:?}",
        LIBRARY.names
    );
    let i = LIBRARY.index_of("fp16_exp").unwrap();
    assert_eq!(Shader::Fp16Exp.index(), i);
    assert!(same(LIBRARY.get(i).unwrap(), alone::SET));
    assert!(same(LIBRARY.by_name("fp16_exp").unwrap(), alone::SET));
    assert!(same(lib::fp16_exp::SET, alone::SET));
    for (k, s) in Shader::ALL.iter().enumerate() {
        assert_eq!(s.index(), k);
        assert_eq!(Shader::from_name(s.name()), Some(*s));
        assert!(std::ptr::eq(s.set(), LIBRARY.sets[k]));
    }
    assert_eq!(
        LIBRARY.get(LIBRARY.len()).unwrap_err(),
        LibraryError::Index {
            index: LIBRARY.len(),
            len: LIBRARY.len()
        }
    );
    let e = LIBRARY.by_name("nope").unwrap_err();
    assert_eq!(e.to_string(), "the library has no shader named `nope`");
    let d = ncnn_glsl_runtime::DeviceCaps::default();
    let c = LIBRARY.select(i, &d, Options::FP32, &[]).unwrap();
    assert_eq!(c.chosen.options, Options::FP32);
}

/// Shaders named as the library module's own items are (`ALL`, `index`,
/// `name`, `set`, `from_name`, `Self`, `Shader`, `LIBRARY`, `std`): each
/// gets names that clash with none of them (a `Shader::ALL` variant once
/// broke the generated code).
#[test]
fn shader_names_never_clash_with_the_generated_items() {
    use names::{Shader, LIBRARY};
    assert_eq!(
        LIBRARY.names,
        [
            "ALL",
            "LIBRARY",
            "Self",
            "Shader",
            "from_name",
            "index",
            "name",
            "set",
            "std"
        ]
    );
    assert_eq!(Shader::ALL.len(), 9);
    assert_eq!(Shader::ALL_.name(), "ALL");
    assert_eq!(Shader::Self_.name(), "Self");
    assert_eq!(Shader::Index.name(), "index");
    assert_eq!(Shader::from_name("set"), Some(Shader::Set));
    assert!(std::ptr::eq(names::std::SET, Shader::Std.set()));
    assert!(std::ptr::eq(names::library::SET, Shader::LIBRARY.set()));
}
