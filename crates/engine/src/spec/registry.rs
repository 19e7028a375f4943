//! One macro for the engine's registries of named mechanisms (the queue disciplines, the congestion
//! controllers): from a list of `Variant, "name" => Type` it makes the enum of parsed tables (each holding
//! the type's `params!` table), the enum of built mechanisms (static dispatch, no virtual call on the
//! hot path), the list of names, and per table its name and its export with every default, and every
//! type's parameter reference. What differs between registries (the tag a table is named by, what a
//! mechanism is built from and when its declared ranges are checked) stays with the registry, which builds
//! through the generated `build` macro, dispatches through `each` and asks a question of every type with `fold`.
//!
//! ```ignore
//! registry! {
//!     /// A discipline's table from a scenario, parsed but not yet built.
//!     spec QueueSpec: Discipline, any AnyQueue, names DISCIPLINES, tag "discipline",
//!     describe describe_disciplines, each each_queue, build build_queue, fold fold_queues;
//!     Droptail, "droptail" => DropTail,
//!     Red, "red" => Red,
//! }
//! ```
//!
//! A type written `Variant, "name" => Type [boxed]` is held on the heap, so that one large mechanism does not
//! widen the enum every flow or port carries (dispatch reaches it through the box unchanged).

/// See the module documentation.
macro_rules! registry {
    (
        $(#[doc = $doc:literal])+
        spec $spec:ident: $family:ident, any $any:ident $(($($derive:ident),*))?, names $names:ident,
        tag $tag:literal,
        describe $describe:ident, each $each:ident, build $build:ident, fold $fold:ident;
        $($variant:ident, $name:literal => $ty:ty $([$boxed:ident])?),* $(,)?
    ) => {
        $(#[doc = $doc])+
        #[derive(Debug, Clone)]
        pub enum $spec { $($variant(<$ty as $family>::Spec)),* }

        /// The mechanisms themselves, dispatched statically.
        #[derive($($($derive),*)?)]
        pub enum $any { $($variant($crate::spec::registry::held!($ty $(, $boxed)?))),* }

        /// The names a scenario may give.
        pub const $names: &[&str] = &[$($name),*];

        impl $spec {
            /// The table of mechanism `name` from the rest of its scenario table (`None`: no such name).
            fn from_table(
                name: &str,
                rest: serde_json::Value,
                field: &str,
            ) -> Option<Result<$spec, $crate::spec::ScenarioError>> {
                match name {
                    $($name => Some($crate::spec::from_value(rest, field).map($spec::$variant)),)*
                    _ => None,
                }
            }

            /// The name as scenarios write it.
            pub fn name(&self) -> &'static str {
                match self { $($spec::$variant(_) => $name),* }
            }

            /// The table with every parameter, defaults filled in (the tag first).
            pub fn to_json(&self) -> serde_json::Value {
                let params = match self { $($spec::$variant(s) => serde_json::to_value(s)),* };
                $crate::spec::with_tag($tag, self.name(), params)
            }
        }

        /// Every type's parameter reference ([`Params::describe`](crate::spec::params::Params::describe)),
        /// by name.
        pub fn $describe() -> Vec<(&'static str, serde_json::Value)> {
            vec![$(($name, <<$ty as $family>::Spec as $crate::spec::params::Params>::describe())),*]
        }

        /// `$each!(any, m => expr)`: `expr` with `m` bound to the mechanism inside.
        macro_rules! $each {
            ($self_:expr, $m:ident => $e:expr) => { match $self_ { $($any::$variant($m) => $e),* } };
        }

        /// `$build!(spec, s, T => expr)`: the mechanism `expr` builds from table `s`, `T` naming its type.
        macro_rules! $build {
            ($self_:expr, $s:ident, $t:ident => $e:expr) => {
                match $self_ {
                    $($spec::$variant($s) => {
                        type $t = $ty;
                        $any::$variant($crate::spec::registry::hold!($e $(, $boxed)?))
                    }),*
                }
            };
        }

        /// `$fold!(T => bool)`: whether any type `T` satisfies the constant expression.
        #[allow(unused_macros)]
        macro_rules! $fold {
            ($t:ident => $e:expr) => { false $(|| { type $t = $ty; $e })* };
        }
    };
}
pub(crate) use registry;

/// The type a registry's enum holds for a mechanism: the type, or a box of it (`boxed`).
macro_rules! held {
    ($ty:ty) => { $ty };
    ($ty:ty, boxed) => { Box<$ty> };
}
pub(crate) use held;

/// A built mechanism as the enum holds it (see [`held`]).
macro_rules! hold {
    ($e:expr) => {
        $e
    };
    ($e:expr, boxed) => {
        Box::new($e)
    };
}
pub(crate) use hold;
