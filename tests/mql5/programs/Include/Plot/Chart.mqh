//+------------------------------------------------------------------+
//|                                                        Chart.mqh |
//+------------------------------------------------------------------+
// A line chart of one series, drawn into a pixel array and shown on the chart as a bitmap label,
// in the manner of the standard library's CGraphic and CCanvas. Written for mqlcl's tests and
// stored as MetaQuotes stores its include files: UTF-16LE with a byte-order mark, CRLF lines.
// The replay cannot show it (no chart): ObjectCreate and ResourceCreate fail there, and say so.
class CPlotChart
  {
private:
   string            m_name;
   int               m_width;
   int               m_height;
   uint              m_pixels[];
   color             m_background;
   bool              m_shown;
   void              Pixel(const int x,const int y,const uint argb);
public:
                     CPlotChart(void) : m_name(""),m_width(0),m_height(0),m_background(clrWhite),m_shown(false) {}
                    ~CPlotChart(void) { Destroy(); }
   bool              Create(const string name,const int width,const int height);
   void              Destroy(void);
   int               Plot(const double &values[],const color line);
   bool              Update(void);
  };
//+------------------------------------------------------------------+
//| The pixels, and a bitmap label to show them                      |
//+------------------------------------------------------------------+
bool CPlotChart::Create(const string name,const int width,const int height)
  {
   m_name=name;
   m_width=width;
   m_height=height;
   if(ArrayResize(m_pixels,width*height)!=width*height)
      return(false);
   ArrayInitialize(m_pixels,ColorToARGB(m_background));
   m_shown=ObjectCreate(0,m_name,OBJ_BITMAP_LABEL,0,0,0) &&
           ObjectSetString(0,m_name,OBJPROP_BMPFILE,"::"+m_name);
   return(m_shown);
  }
//+------------------------------------------------------------------+
void CPlotChart::Destroy(void)
  {
   if(m_shown)
     {
      ObjectDelete(0,m_name);
      ResourceFree("::"+m_name);
     }
   m_shown=false;
  }
//+------------------------------------------------------------------+
void CPlotChart::Pixel(const int x,const int y,const uint argb)
  {
   if(x>=0 && x<m_width && y>=0 && y<m_height)
      m_pixels[y*m_width+x]=argb;
  }
//+------------------------------------------------------------------+
//| Draws the series scaled to the chart; the number of points drawn |
//+------------------------------------------------------------------+
int CPlotChart::Plot(const double &values[],const color line)
  {
   int count=ArraySize(values);
   if(count<2 || m_width<2 || m_height<2)
      return(0);
   double low=values[ArrayMinimum(values)];
   double high=values[ArrayMaximum(values)];
   double range=(high>low ? high-low : 1.0);
   uint argb=ColorToARGB(line);
   int drawn=0;
   for(int i=0; i<count; i++)
     {
      int x=(int)MathRound((double)i*(m_width-1)/(count-1));
      int y=(m_height-1)-(int)MathRound((values[i]-low)/range*(m_height-1));
      Pixel(x,y,argb);
      drawn++;
     }
   return(drawn);
  }
//+------------------------------------------------------------------+
bool CPlotChart::Update(void)
  {
   if(!ResourceCreate("::"+m_name,m_pixels,m_width,m_height,0,0,m_width,COLOR_FORMAT_ARGB_NORMALIZE))
      return(false);
   ChartRedraw();
   return(true);
  }
//+------------------------------------------------------------------+
