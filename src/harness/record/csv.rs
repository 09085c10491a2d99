//! The CSV the recorded files are written in: a header line of field names, then one line per
//! row, a field quoted (its quotes doubled) where it holds a comma, a quote or a line break;
//! numbers in their shortest round-trip form. A row is a flat serde struct (text, numbers,
//! booleans, optional values), so these few serde adapters are all the course needs to write
//! and read them, and a student's build compiles no CSV library.

use std::fmt;

use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::ser::{self, Impossible, Serialize};

/// What went wrong with a row or one of its fields.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// The header line a row's type writes (without its line break).
pub fn header<T: Serialize>(row: &T) -> Result<String, Error> {
    let names: Vec<String> = fields(row)?.into_iter().map(|(n, _)| n.into()).collect();
    Ok(line(&names))
}

/// A row as one line, its line break included.
pub fn row<T: Serialize>(row: &T) -> Result<String, Error> {
    let values: Vec<String> = fields(row)?.into_iter().map(|(_, v)| v).collect();
    Ok(line(&values) + "\n")
}

/// Every row of a file's text, by its header's names: columns the type does not know are
/// ignored, a row shorter than the header lacks the last columns. A row that does not fit
/// is an error naming its line as a spreadsheet counts it (the header is row 1).
pub fn rows<T: DeserializeOwned>(text: &str) -> Result<Vec<T>, Error> {
    let mut records = records(text).into_iter();
    let Some(header) = records.next() else {
        return Ok(Vec::new());
    };
    records
        .enumerate()
        .map(|(i, fields)| {
            T::deserialize(Row {
                header: &header,
                fields: &fields,
            })
            .map_err(|e| Error(format!("row {}: {e}", i + 2)))
        })
        .collect()
}

/// A field that does not read as its type reads as none (serde's `deserialize_with`), as for
/// a number column some writers leave as text.
pub fn invalid_option<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: de::Deserializer<'de>,
    Option<T>: de::Deserialize<'de>,
{
    Ok(<Option<T> as de::Deserialize>::deserialize(d).unwrap_or(None))
}

fn line(fields: &[String]) -> String {
    let quoted: Vec<String> = fields
        .iter()
        .map(|f| {
            if f.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", f.replace('"', "\"\""))
            } else {
                f.clone()
            }
        })
        .collect();
    quoted.join(",")
}

/// The records of a text: fields split at commas outside quotes, records at line breaks
/// outside quotes (`\n` or `\r\n`), blank lines skipped.
fn records(text: &str) -> Vec<Vec<String>> {
    let (mut out, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut started) = (false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => (quoted, started) = (true, true),
            ',' => {
                record.push(std::mem::take(&mut field));
                started = true;
            }
            '\r' | '\n' => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                if started || !field.is_empty() {
                    record.push(std::mem::take(&mut field));
                    out.push(std::mem::take(&mut record));
                }
                started = false;
            }
            _ => field.push(c),
        }
    }
    if started || !field.is_empty() {
        record.push(field);
        out.push(record);
    }
    out
}

/// A row's fields, each as its name and its text.
fn fields<T: Serialize>(row: &T) -> Result<Vec<(&'static str, String)>, Error> {
    row.serialize(RowSer)
}

struct RowSer;

struct StructSer(Vec<(&'static str, String)>);

impl ser::SerializeStruct for StructSer {
    type Ok = Vec<(&'static str, String)>;
    type Error = Error;
    fn serialize_field<V: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), Error> {
        self.0.push((key, value.serialize(FieldSer)?));
        Ok(())
    }
    fn end(self) -> Result<Self::Ok, Error> {
        Ok(self.0)
    }
}

fn not_a_row<T>() -> Result<T, Error> {
    Err(Error(
        "a recorded row must be a struct of single values".into(),
    ))
}

/// The serializer methods of a shape a row cannot take: each is an error.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $arg),*) -> Result<Self::Ok, Error> { not_a_row() })*
    };
}

impl ser::Serializer for RowSer {
    type Ok = Vec<(&'static str, String)>;
    type Error = Error;
    type SerializeSeq = Impossible<Self::Ok, Error>;
    type SerializeTuple = Impossible<Self::Ok, Error>;
    type SerializeTupleStruct = Impossible<Self::Ok, Error>;
    type SerializeTupleVariant = Impossible<Self::Ok, Error>;
    type SerializeMap = Impossible<Self::Ok, Error>;
    type SerializeStruct = StructSer;
    type SerializeStructVariant = Impossible<Self::Ok, Error>;

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<StructSer, Error> {
        Ok(StructSer(Vec::with_capacity(len)))
    }
    refuse!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );
    fn serialize_some<V: Serialize + ?Sized>(self, _: &V) -> Result<Self::Ok, Error> {
        not_a_row()
    }
    fn serialize_newtype_struct<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &V,
    ) -> Result<Self::Ok, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<Self::Ok, Error> {
        not_a_row()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        not_a_row()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        not_a_row()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        not_a_row()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        not_a_row()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        not_a_row()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        not_a_row()
    }
}

/// One field's text.
struct FieldSer;

impl ser::Serializer for FieldSer {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Impossible<String, Error>;
    type SerializeTuple = Impossible<String, Error>;
    type SerializeTupleStruct = Impossible<String, Error>;
    type SerializeTupleVariant = Impossible<String, Error>;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    type SerializeStructVariant = Impossible<String, Error>;

    fn serialize_bool(self, v: bool) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i8(self, v: i8) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i16(self, v: i16) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i32(self, v: i32) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_i64(self, v: i64) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u8(self, v: u8) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u16(self, v: u16) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u32(self, v: u32) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_u64(self, v: u64) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_f32(self, v: f32) -> Result<String, Error> {
        Ok(ryu::Buffer::new().format(v).to_string())
    }
    fn serialize_f64(self, v: f64) -> Result<String, Error> {
        Ok(ryu::Buffer::new().format(v).to_string())
    }
    fn serialize_char(self, v: char) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(v.to_string())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<String, Error> {
        not_a_row()
    }
    fn serialize_none(self) -> Result<String, Error> {
        Ok(String::new())
    }
    fn serialize_some<V: Serialize + ?Sized>(self, value: &V) -> Result<String, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<String, Error> {
        Ok(String::new())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String, Error> {
        Ok(String::new())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<String, Error> {
        Ok(variant.to_string())
    }
    fn serialize_newtype_struct<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &V,
    ) -> Result<String, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<V: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<String, Error> {
        not_a_row()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        not_a_row()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        not_a_row()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        not_a_row()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        not_a_row()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        not_a_row()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        not_a_row()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        not_a_row()
    }
}

/// One record, read as a map from the header's names to its fields.
struct Row<'a> {
    header: &'a [String],
    fields: &'a [String],
}

impl<'de> de::Deserializer<'de> for Row<'_> {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_map(Columns {
            pairs: self.header.iter().zip(self.fields),
            value: None,
        })
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct Columns<'a, I> {
    pairs: I,
    value: Option<(&'a str, &'a str)>,
}

impl<'de, 'a, I: Iterator<Item = (&'a String, &'a String)>> de::MapAccess<'de> for Columns<'a, I> {
    type Error = Error;
    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((name, value)) = self.pairs.next() else {
            return Ok(None);
        };
        self.value = Some((name, value));
        seed.deserialize(name.as_str().into_deserializer())
            .map(Some)
    }
    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let (name, value) = self.value.take().expect("a value follows its key");
        seed.deserialize(Field(value))
            .map_err(|e| Error(format!("column {name} ({value:?}): {e}")))
    }
}

/// One field's text, read as whatever its column's type asks for.
struct Field<'a>(&'a str);

impl Field<'_> {
    fn parse<T: std::str::FromStr>(&self, what: &str) -> Result<T, Error> {
        self.0.parse().map_err(|_| Error(format!("not {what}")))
    }
}

impl<'de> de::Deserializer<'de> for Field<'_> {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_str(self.0)
    }
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_bool(self.parse("true or false")?)
    }
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_i64(self.parse("an integer")?)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_i64(self.parse("an integer")?)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_i64(self.parse("an integer")?)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_i64(self.parse("an integer")?)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_u64(self.parse("a whole number")?)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_u64(self.parse("a whole number")?)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_u64(self.parse("a whole number")?)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_u64(self.parse("a whole number")?)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_f32(self.parse("a number")?)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_f64(self.parse("a number")?)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.0.is_empty() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
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
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self.0.into_deserializer())
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
    serde::forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit_struct seq tuple tuple_struct map struct
        identifier
    }
}
