//! A JSON value read as a scenario: like `&serde_json::Value`, except that a table must be a table. serde
//! also reads a struct from a list of its fields in order, so `bottleneck = ["10Mbps", "5ms", {...}]`
//! would be a bottleneck; here it is an error ("expected a table, got a list of 3 values").

use serde::de::{self, value::BorrowedStrDeserializer, DeserializeSeed, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Error, Map, Value};

/// A value to deserialize strictly.
#[derive(Clone, Copy)]
pub(crate) struct Strict<'a>(pub &'a Value);

macro_rules! delegate {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            de::Deserializer::$method(self.0, visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Strict<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visitor.visit_seq(Seq(items.iter())),
            Value::Object(map) => visitor.visit_map(Table::new(map)),
            v => de::Deserializer::deserialize_any(v, visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => visitor.visit_map(Table::new(map)),
            Value::Array(_) => Err(de::Error::invalid_type(de::Unexpected::Seq, &visitor)),
            v => de::Deserializer::deserialize_any(v, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_enum(self.0, name, variants, visitor)
    }

    delegate! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_u8
        deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier deserialize_ignored_any
    }

    forward_to_deserialize_any! { i128 u128 seq map tuple tuple_struct unit_struct }
}

/// The items of a list, each read strictly.
struct Seq<'a>(std::slice::Iter<'a, Value>);

impl<'de> de::SeqAccess<'de> for Seq<'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        self.0.next().map(|v| seed.deserialize(Strict(v))).transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// The entries of a table, each value read strictly.
struct Table<'a> {
    entries: serde_json::map::Iter<'a>,
    value: Option<&'a Value>,
}

impl<'a> Table<'a> {
    fn new(map: &'a Map<String, Value>) -> Self {
        Table { entries: map.iter(), value: None }
    }
}

impl<'de> de::MapAccess<'de> for Table<'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else { return Ok(None) };
        self.value = Some(value);
        seed.deserialize(BorrowedStrDeserializer::<Error>::new(key)).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(Strict(self.value.take().expect("a key comes before its value")))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}
