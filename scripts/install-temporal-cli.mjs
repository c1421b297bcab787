console.log("temporal cli: placeholder")
